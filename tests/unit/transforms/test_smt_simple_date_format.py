"""The SimpleDateFormat subset used by TimestampConverter and TimestampRouter."""

from __future__ import annotations

import pytest

from connect_runtime.transforms._simple_date_format import PatternError, SimpleDateFormat

T = 1_700_000_000_123  # 2023-11-14T22:13:20.123Z, a Tuesday


@pytest.mark.parametrize(("pattern", "text"), [
    ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2023-11-14T22:13:20.123Z"),
    ("yyyyMMdd", "20231114"),
    ("yy", "23"),
    ("y", "2023"),
    ("EEE, d MMM yyyy hh:mm:ss a z", "Tue, 14 Nov 2023 10:13:20 PM UTC"),
    ("EEEE MMMM dd", "Tuesday November 14"),
    ("D u k K h H", "318 2 22 10 10 22"),
    ("yyyy-MM-dd HH:mm:ss Z", "2023-11-14 22:13:20 +0000"),
    ("G yyyy '' 'it''s'", "AD 2023 ' it's"),
    ("S SS SSSS", "123 123 0123"),
])
def test_format(pattern: str, text: str) -> None:
    assert SimpleDateFormat(pattern).format(T) == text


@pytest.mark.parametrize(("pattern", "text", "millis"), [
    ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2023-11-14T22:13:20.123Z", T),
    ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2023-11-14T23:13:20.123+01:00", T),
    ("yyyy-MM-dd HH:mm:ss.SSS Z", "2023-11-14 17:13:20.123 -0500", T),
    ("EEE, d MMM yyyy hh:mm:ss.SSS a z", "Tue, 14 nov 2023 10:13:20.123 PM UTC", T),
    ("yyyyMMddHHmmssSSS", "20231114221320123", T),
    ("yyyy-M-d", "2023-11-14 and more", 1_699_920_000_000),  # trailing text is ignored, as in Java
    ("yyyy-MM-dd", "2023-13-01", 1_704_067_200_000),  # lenient: month 13 rolls into the next year
    ("yyyy D", "2023 318", 1_699_920_000_000),
    ("yyyy-MM-dd kk:mm", "2023-11-14 24:00", 1_699_920_000_000),
])
def test_parse(pattern: str, text: str, millis: int) -> None:
    assert SimpleDateFormat(pattern).parse(text) == millis


def test_parse_failure() -> None:
    with pytest.raises(ValueError, match="Unparseable date"):
        SimpleDateFormat("yyyy-MM-dd").parse("14/11/2023")


@pytest.mark.parametrize(("pattern", "message"), [
    ("bad-format", "Illegal pattern character 'b'"),
    ("yyyy'", "Unterminated quote"),
    ("YYYY", "unsupported pattern letter 'Y'"),
    ("ww", "unsupported pattern letter 'w'"),
    ("W", "unsupported pattern letter 'W'"),
    ("F", "unsupported pattern letter 'F'"),
    ("XXXX", "invalid ISO 8601 format: length=4"),
])
def test_refused_patterns(pattern: str, message: str) -> None:
    with pytest.raises(PatternError, match=message):
        SimpleDateFormat(pattern)


def test_dates_before_the_gregorian_cutover_are_julian_as_java() -> None:
    fmt = SimpleDateFormat("yyyy-MM-dd D EEE")
    cutover = -12_219_292_800_000  # 1582-10-15T00:00Z
    assert fmt.format(cutover) == "1582-10-15 278 Fri"
    assert fmt.format(cutover - 1) == "1582-10-04 277 Thu"
    assert fmt.format(-62_135_596_800_000) == "0001-01-03 3 Mon"  # Gregorian 0001-01-01
    day = SimpleDateFormat("yyyy-MM-dd")
    assert day.parse("1582-10-04") == cutover - 86_400_000
    assert day.parse("1000-02-29") == day.parse("1000-03-01") - 86_400_000  # a Julian leap year
