"""Java ``SimpleDateFormat`` patterns, formatted and parsed in UTC (as TimestampConverter and
TimestampRouter use them), in English.

Supported letters: ``G y M L d D E u a H k K h m s S z Z X`` and quoted text (``'T'``, ``''``).
Patterns with the week-based letters ``Y w W F`` are refused (:class:`PatternError`), as is any
letter Java itself rejects. Parsing is lenient as Java's default: out-of-range numbers roll over
(month 13 is January of the next year), text after the match is ignored, a two-digit year (``yy``)
is placed within 80 years before and 20 after now. Dates are in the years 1 to 9999 and, as Java's
default ``GregorianCalendar`` has them, in the Julian calendar before 1582-10-15 (so the instant
Python calls 1582-10-14 is written 1582-10-04; a parsed date before the cutover is a Julian one).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

_JAVA_LETTERS = "GyMdkHmsSEDFwWahKzZYuXL"
_REFUSED = "YwWF"
_NUMERIC = set("ydDHkKhmsSu")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
#: 1582-10-15T00:00Z, the first Gregorian day of Java's default calendar
_CUTOVER_MS = -12_219_292_800_000
_MS_PER_DAY = 86_400_000
#: the Julian day number of 1970-01-01
_EPOCH_JDN = 2_440_588


class PatternError(ValueError):
    """The pattern is not valid, or uses letters this implementation does not support."""


@dataclass(frozen=True, slots=True)
class _Field:
    letter: str
    count: int


_Token = _Field | str


def _tokenize(pattern: str) -> list[_Token]:
    tokens: list[_Token] = []
    literal: list[str] = []
    i, n = 0, len(pattern)

    def flush() -> None:
        if literal:
            tokens.append("".join(literal))
            literal.clear()

    while i < n:
        c = pattern[i]
        if c == "'":
            if i + 1 < n and pattern[i + 1] == "'":
                literal.append("'")
                i += 2
                continue
            i += 1
            while True:
                if i >= n:
                    raise PatternError("Unterminated quote")
                if pattern[i] == "'":
                    if i + 1 < n and pattern[i + 1] == "'":
                        literal.append("'")
                        i += 2
                        continue
                    i += 1
                    break
                literal.append(pattern[i])
                i += 1
        elif c.isascii() and c.isalpha():
            if c not in _JAVA_LETTERS:
                raise PatternError(f"Illegal pattern character '{c}'")
            j = i
            while j < n and pattern[j] == c:
                j += 1
            if c in _REFUSED:
                raise PatternError(f"unsupported pattern letter '{c}' (week-based fields are not supported)")
            if c == "X" and j - i > 3:
                raise PatternError(f"invalid ISO 8601 format: length={j - i}")
            flush()
            tokens.append(_Field(c, j - i))
            i = j
        else:
            literal.append(c)
            i += 1
    flush()
    return tokens


def _is_numeric(token: _Token) -> bool:
    return isinstance(token, _Field) and (token.letter in _NUMERIC or (token.letter in "ML" and token.count <= 2))


class SimpleDateFormat:
    """A SimpleDateFormat pattern in the UTC time zone."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokenize(pattern)
        self._regex, self._groups = self._build_regex()

    # -- formatting ---------------------------------------------------------------------------------
    def format(self, millis: int) -> str:
        """Format milliseconds since the epoch (UTC)."""
        try:
            dt = _EPOCH + datetime.timedelta(milliseconds=millis)
        except OverflowError:
            raise ValueError(f"timestamp {millis} is outside the years 1 to 9999") from None
        date = _julian_date(millis // _MS_PER_DAY) if millis < _CUTOVER_MS else _CalendarDate.of(dt.date())
        return "".join(t if isinstance(t, str) else _format_field(t, dt, date) for t in self._tokens)

    # -- parsing ------------------------------------------------------------------------------------
    def _build_regex(self) -> tuple[re.Pattern[str], list[_Field]]:
        parts: list[str] = []
        groups: list[_Field] = []
        for i, token in enumerate(self._tokens):
            if isinstance(token, str):
                parts.append(re.escape(token))
                continue
            groups.append(token)
            nxt = self._tokens[i + 1] if i + 1 < len(self._tokens) else None
            letter, count = token.letter, token.count
            if _is_numeric(token):
                # abutting numeric fields (yyyyMMdd) take exactly their width, as Java does
                parts.append(rf"(\d{{{count}}})" if nxt is not None and _is_numeric(nxt) else r"([+-]?\d+)")
            elif letter in "ML":
                names = _MONTHS + [m[:3] for m in _MONTHS]
                parts.append("((?i:" + "|".join(sorted(names, key=len, reverse=True)) + "))")
            elif letter == "E":
                names = _DAYS + [d[:3] for d in _DAYS]
                parts.append("((?i:" + "|".join(sorted(names, key=len, reverse=True)) + "))")
            elif letter == "a":
                parts.append("((?i:AM|PM))")
            elif letter == "G":
                parts.append("((?i:AD|BC))")
            elif letter == "X":
                parts.append(r"(Z|[+-]\d{2}(?::?\d{2})?)")
            else:  # z and Z accept the general and the RFC 822 forms
                parts.append(r"((?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?|Z|[+-]\d{2}:?\d{2})")
        return re.compile("".join(parts)), groups

    def parse(self, text: str) -> int:
        """Milliseconds since the epoch of the text, which must start with a match of the pattern."""
        m = self._regex.match(text)
        if m is None:
            raise ValueError(f"Unparseable date: \"{text}\"")
        year, month, day, day_of_year = 1970, 1, 1, None
        hour = minute = second = millis = 0
        hour_kind: str | None = None
        pm: bool | None = None
        bc = False
        offset_minutes = 0
        date_given = False
        for field, raw in zip(self._groups, m.groups(), strict=True):
            letter = field.letter
            if letter == "y":
                year = int(raw)
                if field.count <= 2 and len(raw) == 2 and raw.isdigit():
                    year = _two_digit_year(year)
            elif letter in "ML":
                date_given = True
                month = _month_index(raw) + 1 if field.count >= 3 else int(raw)
            elif letter == "d":
                day, date_given = int(raw), True
            elif letter == "D":
                day_of_year = int(raw)
            elif letter in "HkKh":
                hour, hour_kind = int(raw), letter
            elif letter == "m":
                minute = int(raw)
            elif letter == "s":
                second = int(raw)
            elif letter == "S":
                millis = int(raw)
            elif letter == "a":
                pm = raw.upper() == "PM"
            elif letter == "G":
                bc = raw.upper() == "BC"
            elif letter in "zZX":
                offset_minutes = _offset_minutes(raw)
            # E and u name the day of the week: ignored when the date is given, as in Java
        if bc:
            raise ValueError("dates before the year 1 are not supported")
        if hour_kind == "k" and hour == 24:
            hour = 0
        elif hour_kind in ("K", "h"):
            hour = hour % 12 if hour_kind == "h" else hour
            if pm:
                hour += 12
        months = year * 12 + (month - 1)
        first_year, first_month = months // 12, months % 12 + 1
        days = day_of_year - 1 if day_of_year is not None and not date_given else day - 1
        time_ms = (((hour * 60 + minute - offset_minutes) * 60) + second) * 1000 + millis
        try:
            base = datetime.datetime(first_year, first_month, 1, tzinfo=datetime.UTC)
            dt = base + datetime.timedelta(days=days, milliseconds=time_ms)
        except (ValueError, OverflowError):
            raise ValueError(f"Unparseable date: \"{text}\"") from None
        delta = dt - _EPOCH
        result = (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000
        if result < _CUTOVER_MS:
            # before the cutover the fields name a Julian date
            julian_days = _julian_day_number(first_year, first_month, 1) - _EPOCH_JDN + days
            result = julian_days * _MS_PER_DAY + time_ms
            if result < _FIRST_MS:
                raise ValueError(f"Unparseable date: \"{text}\"")
        return result


@dataclass(frozen=True, slots=True)
class _CalendarDate:
    """A day as a calendar names it: year, month, day of month and day of year."""

    year: int
    month: int
    day: int
    day_of_year: int

    @staticmethod
    def of(date: datetime.date) -> _CalendarDate:
        day_of_year = date.timetuple().tm_yday
        if date.year == 1582:  # Java's 1582 lacks the ten days the cutover skipped
            day_of_year -= 10
        return _CalendarDate(date.year, date.month, date.day, day_of_year)


def _julian_day_number(year: int, month: int, day: int) -> int:
    """The Julian day number of a date of the Julian calendar."""
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - 32083


def _julian_date(epoch_day: int) -> _CalendarDate:
    """The Julian calendar's date of a day counted from 1970-01-01."""
    c = epoch_day + _EPOCH_JDN + 32082
    d = (4 * c + 3) // 1461
    e = c - (1461 * d) // 4
    m = (5 * e + 2) // 153
    day = e - (153 * m + 2) // 5 + 1
    month = m + 3 - 12 * (m // 10)
    year = d - 4800 + m // 10
    return _CalendarDate(year, month, day, epoch_day + _EPOCH_JDN - _julian_day_number(year, 1, 1) + 1)


#: the first instant formatted or parsed: 0001-01-01T00:00Z (Gregorian), as ``datetime`` has it
_FIRST_MS = (datetime.datetime(1, 1, 1, tzinfo=datetime.UTC) - _EPOCH) // datetime.timedelta(milliseconds=1)


def _format_field(field: _Field, dt: datetime.datetime, date: _CalendarDate) -> str:
    letter, count = field.letter, field.count
    if letter == "G":
        return "AD"
    if letter == "y":
        return f"{date.year % 100:02d}" if count == 2 else str(date.year).zfill(count)
    if letter in "ML":
        if count >= 4:
            return _MONTHS[date.month - 1]
        if count == 3:
            return _MONTHS[date.month - 1][:3]
        return str(date.month).zfill(count)
    if letter == "E":
        name = _DAYS[dt.weekday()]
        return name if count >= 4 else name[:3]
    if letter == "a":
        return "AM" if dt.hour < 12 else "PM"
    if letter == "z":
        return "Coordinated Universal Time" if count >= 4 else "UTC"
    if letter == "Z":
        return "+0000"
    if letter == "X":
        return "Z"
    number = {
        "d": date.day,
        "D": date.day_of_year,
        "u": dt.isoweekday(),
        "H": dt.hour,
        "k": dt.hour or 24,
        "K": dt.hour % 12,
        "h": dt.hour % 12 or 12,
        "m": dt.minute,
        "s": dt.second,
        "S": dt.microsecond // 1000,
    }[letter]
    return str(number).zfill(count)


def _two_digit_year(yy: int) -> int:
    start = datetime.datetime.now(datetime.UTC).year - 80
    year = start // 100 * 100 + yy
    return year + 100 if year < start else year


def _month_index(name: str) -> int:
    folded = name.lower()
    for i, month in enumerate(_MONTHS):
        if folded in (month.lower(), month[:3].lower()):
            return i
    raise ValueError(name)  # pragma: no cover - the regex only matches month names


def _offset_minutes(raw: str) -> int:
    text = raw.upper()
    if text in ("Z", "UTC", "GMT"):
        return 0
    if text.startswith(("UTC", "GMT")):
        text = text[3:]
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    if len(digits) <= 2:
        hours, minutes = int(digits), 0
    else:
        hours, minutes = int(digits[:-2]), int(digits[-2:])
    return sign * (hours * 60 + minutes)
