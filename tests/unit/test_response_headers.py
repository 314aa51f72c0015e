"""``response.http.headers.config`` without a broker: the rule grammar (Java's RestServerConfig and Jetty's
HeaderFilter) and the worker's start-up refusal."""

from __future__ import annotations

import pytest

from connect_runtime.config.response_headers import (
    HeaderAction,
    ResponseHeaderConfigError,
    ResponseHeaderRule,
    csv_split,
    parse_response_headers,
)
from connect_runtime.config.worker_config import WorkerConfig, WorkerConfigError

_WORKER = {"bootstrap.servers": "localhost:9092", "group.id": "g", "config.storage.topic": "c",
           "offset.storage.topic": "o", "status.storage.topic": "s"}

# --- the grammar ------------------------------------------------------------------------------------


def test_csv_split_as_jetty() -> None:
    assert csv_split(' set A: 1 ,"add B: x, y" , setDate C: 5') == ["set A: 1", "add B: x, y", "setDate C: 5"]
    assert csv_split('"a \\" b" trailing, c,') == ['a " b', "c"]  # escape; text after the quotes dropped
    assert csv_split("a,,b") == ["a", "", "b"]
    assert csv_split("") == []


def test_valid_rules() -> None:
    rules = parse_response_headers(
        'set X-Frame-Options: DENY, "add Cache-Control: no-cache, no-store, must-revalidate", '
        "setDate Expires: 31540000000, addDate Last-Modified: -1000")
    assert rules == (
        ResponseHeaderRule(HeaderAction.SET, "X-Frame-Options", "DENY"),
        ResponseHeaderRule(HeaderAction.ADD, "Cache-Control", "no-cache, no-store, must-revalidate"),
        ResponseHeaderRule(HeaderAction.SET_DATE, "Expires", "31540000000", 31540000000),
        ResponseHeaderRule(HeaderAction.ADD_DATE, "Last-Modified", "-1000", -1000),
    )
    assert parse_response_headers("  ") == ()


# Java's RestServerConfigTest's valid configs: any whitespace, any case.
@pytest.mark.parametrize("config", [
    "add \t Cache-Control: no-cache, no-store, must-revalidate",
    "\n add Strict-Transport-Security: max-age=31536000; includeSubDomains",
    "AdD \t Strict-Transport-Security : \n   max-age=31536000;  includeSubDomains",
    "Set \t X-Frame-Options: \t Deny\n ",
    "seTDate \t Expires: \r 31540000000",
    "adDdate \n Last-Modified: \t 0",
])
def test_java_valid_configs(config: str) -> None:
    (rule,) = parse_response_headers(f'"{config}"')
    assert rule.action.value.lower() == config.split()[0].lower()


@pytest.mark.parametrize(("config", "message"), [
    ("set \t", "Invalid format of header config 'set'. Expected: '[action] [header name]:[header value]'"),
    ("addX-XSS-Protection", "Invalid format of header config 'addX-XSS-Protection'. "
                            "Expected: '[action] [header name]:[header value]'"),
    ("badaction \t X-Frame-Options:DENY",
     "Invalid header config action: 'badaction'. Expected one of [set, add, setDate, addDate]"),
    ("set add X-XSS-Protection:1", "Invalid header name 'add X-XSS-Protection'. "
                                   "The '[header name]' cannot contain whitespace"),
    ("add X-XSS-Protection", "Invalid format of header name and header value pair 'X-XSS-Protection'. "
                             "Expected: '[header name]:[header value]'"),
    ("add X-XSS-Protection:1 X-XSS-Protection:1 ",
     "Invalid format of header name and header value pair 'X-XSS-Protection:1 X-XSS-Protection:1'. "
     "Expected: '[header name]:[header value]'"),
    ("set X-Frame-Options:DENY, add  :no-cache, no-store, must-revalidate ",
     "Invalid header name ''. The '[header name]' cannot contain whitespace"),
    # Where Jetty would fail at start-up or send a broken header.
    ("setDate Expires: soon", "Invalid header value 'soon' of header config 'setDate Expires: soon'. "
                              "The '[header value]' of setDate must be a number of milliseconds"),
    ("set X(1): y", "Invalid header name 'X(1)'. The '[header name]' must be an HTTP token"),
    ("set X-A: caf\u00e9", "Invalid header value 'caf\u00e9' of header config 'set X-A: caf\u00e9'. "
                           "The '[header value]' must be printable ASCII"),
])
def test_java_error_messages(config: str, message: str) -> None:
    with pytest.raises(ResponseHeaderConfigError) as e:
        parse_response_headers(config)
    assert str(e.value).startswith(message)


def test_a_bad_rule_refuses_start_up_naming_the_key() -> None:
    with pytest.raises(WorkerConfigError) as e:
        WorkerConfig.from_properties({**_WORKER, "response.http.headers.config": "set X-A: 1, badaction X-B: 2"})
    assert e.value.key == "response.http.headers.config"
    assert str(e.value) == (
        'Invalid value "set X-A: 1, badaction X-B: 2" for configuration response.http.headers.config: '
        "Invalid header config action: 'badaction'. Expected one of [set, add, setDate, addDate]")
    assert "\n" not in str(e.value)


def test_worker_setting_default_and_rules() -> None:
    assert WorkerConfig.from_properties(_WORKER).response_header_rules == ()
    config = WorkerConfig.from_properties({**_WORKER, "response.http.headers.config": "add X-A: 1"})
    assert config.response_http_headers_config == "add X-A: 1"
    assert config.response_header_rules == (ResponseHeaderRule(HeaderAction.ADD, "X-A", "1"),)
