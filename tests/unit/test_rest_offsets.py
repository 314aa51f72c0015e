"""The offsets endpoints (KIP-875) against an in-memory herder: JSON shapes, status codes and the
reference's messages, including every malformed body (always 400, never 500).

The real-broker behaviour (stores, fencing, what tasks resume from) is in
tests/integration/test_offsets_api.py.
"""

from __future__ import annotations

import json

import pytest
from fake_herder import SOURCE_CLASS, FakeConnector, FakeHerder, err
from fastapi.testclient import TestClient

from connect_runtime.types import ConnectorOffset, TargetState
from connect_runtime.worker.offsets_admin import InvalidOffsetsRequest, completion_message, normalize_offsets
from rest.routers import CONFLICTING_OPERATION, NO_KNOWN_LEADER

NOT_STOPPED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the "
    "specified connector by issuing a 'PUT' request to the '/connectors/a/stop' endpoint"
)
NO_OFFSETS = "Partitions / offsets need to be provided for an alter offsets request"
ALTERED = "The offsets for this connector have been altered successfully"
RESET = "The offsets for this connector have been reset successfully"
FRAMEWORK_ALTERED = (
    "The Connect framework-managed offsets for this connector have been altered successfully. However, if this "
    "connector manages offsets externally, they will need to be manually altered in the system that the "
    "connector uses."
)
FRAMEWORK_RESET = FRAMEWORK_ALTERED.replace("altered", "reset")
OFFSETS_CLASS = "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets"
OFFSET_CLASS = "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset"
MAP_TYPE = "java.util.LinkedHashMap<java.lang.String,java.lang.Object>"


def add(herder: FakeHerder, name: str = "a", stopped: bool = True, **kwargs: object) -> FakeConnector:
    conn = FakeConnector(config={"name": name, "connector.class": SOURCE_CLASS, "tasks.max": "2"},
                         target=TargetState.STOPPED if stopped else TargetState.STARTED,
                         tasks=0 if stopped else 2, **kwargs)  # type: ignore[arg-type]
    herder.connectors_by_name[name] = conn
    return conn


def patch(client: TestClient, body: object, name: str = "a", **params: str) -> tuple[int, object]:
    raw = body if isinstance(body, str) else json.dumps(body)
    resp = client.patch(f"/connectors/{name}/offsets", content=raw, params=params,
                        headers={"Content-Type": "application/json"})
    return resp.status_code, resp.json()


def seqno(task: int, n: int) -> dict[str, object]:
    return {"partition": {"id": task}, "offset": {"seqno": n}}


# ---------------------------------------------------------------------------------------------
# GET
# ---------------------------------------------------------------------------------------------


def test_get_offsets_unknown_connector_is_404(client: TestClient) -> None:
    resp = client.get("/connectors/nope/offsets")
    assert resp.status_code == 404
    assert resp.json() == err(404, "Connector nope not found")


def test_get_offsets_shape(client: TestClient, herder: FakeHerder) -> None:
    add(herder)
    assert client.get("/connectors/a/offsets").json() == {"offsets": []}
    assert patch(client, {"offsets": [seqno(0, 7), seqno(1, 3)]})[0] == 200
    resp = client.get("/connectors/a/offsets")
    assert resp.status_code == 200
    body = resp.json()
    assert list(body) == ["offsets"]
    assert sorted(body["offsets"], key=lambda o: o["partition"]["id"]) == [seqno(0, 7), seqno(1, 3)]
    assert all(list(o) == ["partition", "offset"] for o in body["offsets"])


def test_get_offsets_needs_no_leader(client: TestClient, herder: FakeHerder) -> None:
    add(herder)
    herder.is_leader = False
    assert client.get("/connectors/a/offsets").status_code == 200


# ---------------------------------------------------------------------------------------------
# PATCH / DELETE
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [TargetState.STARTED, TargetState.PAUSED])
def test_modify_offsets_of_a_connector_not_stopped_is_400(
    client: TestClient, herder: FakeHerder, target: TargetState
) -> None:
    add(herder, stopped=False).target = target
    assert patch(client, {"offsets": [seqno(0, 1)]}) == (400, err(400, NOT_STOPPED))
    resp = client.delete("/connectors/a/offsets")
    assert (resp.status_code, resp.json()) == (400, err(400, NOT_STOPPED))


def test_modify_offsets_unknown_connector_is_404(client: TestClient) -> None:
    assert patch(client, {"offsets": [seqno(0, 1)]}, name="nope") == (404, err(404, "Connector nope not found"))
    resp = client.delete("/connectors/nope/offsets")
    assert (resp.status_code, resp.json()) == (404, err(404, "Connector nope not found"))


def test_alter_and_reset_messages(client: TestClient, herder: FakeHerder) -> None:
    conn = add(herder)
    assert patch(client, {"offsets": [seqno(0, 5)]}) == (200, {"message": FRAMEWORK_ALTERED})
    resp = client.delete("/connectors/a/offsets")
    assert (resp.status_code, resp.json()) == (200, {"message": FRAMEWORK_RESET})
    assert client.get("/connectors/a/offsets").json() == {"offsets": []}
    conn.alter_offsets_result = True
    assert patch(client, {"offsets": [seqno(0, 5)]}) == (200, {"message": ALTERED})
    resp = client.delete("/connectors/a/offsets")
    assert (resp.status_code, resp.json()) == (200, {"message": RESET})


def test_alter_with_null_offset_resets_that_partition(client: TestClient, herder: FakeHerder) -> None:
    add(herder)
    patch(client, {"offsets": [seqno(0, 5), seqno(1, 6)]})
    assert patch(client, {"offsets": [{"partition": {"id": 0}, "offset": None}]})[0] == 200
    assert patch(client, {"offsets": [{"partition": {"id": 0}}]})[0] == 200  # a missing offset is null too
    assert client.get("/connectors/a/offsets").json() == {"offsets": [seqno(1, 6)]}


def test_offsets_keep_their_json_types(client: TestClient, herder: FakeHerder) -> None:
    add(herder)
    entry = {"partition": {"file": "a.txt", "n": 1}, "offset": {"pos": 1.5, "big": 2**40, "eof": True, "x": None}}
    assert patch(client, {"offsets": [entry]})[0] == 200
    assert client.get("/connectors/a/offsets").json() == {"offsets": [entry]}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", NO_OFFSETS),
        ("null", NO_OFFSETS),
        ("{}", NO_OFFSETS),
        ('{"offsets": null}', NO_OFFSETS),
        ('{"offsets": []}', NO_OFFSETS),
        ("[]", f"Cannot deserialize value of type `{OFFSETS_CLASS}` from Array value (token `JsonToken.START_ARRAY`)"),
        ('{"key": []}', f'Unrecognized field "key" (class {OFFSETS_CLASS}), not marked as ignorable '
                        '(one known property: "offsets"])'),
        ('{"offsets": {}}', f"Cannot deserialize value of type `java.util.ArrayList<{OFFSET_CLASS}>` from Object "
                            "value (token `JsonToken.START_OBJECT`)"),
        # Jackson's words for each shape, as Java 4.1 answers them (then with the error's line and column).
        ('{"offsets": [123]}', f"Cannot construct instance of `{OFFSET_CLASS}` (although at least one Creator "
                               "exists): no int/Int-argument constructor/factory method to deserialize from Number "
                               "value (123)"),
        ('{"offsets": [5.5]}', f"Cannot construct instance of `{OFFSET_CLASS}` (although at least one Creator "
                               "exists): no double/Double-argument constructor/factory method to deserialize from "
                               "Number value (5.5)"),
        ('{"offsets": [true]}', f"Cannot construct instance of `{OFFSET_CLASS}` (although at least one Creator "
                                "exists): no boolean/Boolean-argument constructor/factory method to deserialize from "
                                "boolean value (true)"),
        ('"x"', f"Cannot construct instance of `{OFFSETS_CLASS}` (although at least one Creator exists): no "
                "String-argument constructor/factory method to deserialize from String value ('x')"),
        ('""', f'Cannot coerce empty String ("") to `{OFFSETS_CLASS}` value (but could if coercion was enabled '
               "using `CoercionConfig`)"),
        ('{"offsets": "x"}', f"Cannot deserialize value of type `java.util.ArrayList<{OFFSET_CLASS}>` from String "
                             "value (token `JsonToken.VALUE_STRING`)"),
        ('{"offsets": 3}', f"Cannot deserialize value of type `java.util.ArrayList<{OFFSET_CLASS}>` from Integer "
                           "value (token `JsonToken.VALUE_NUMBER_INT`)"),
        ('{"offsets": false}', f"Cannot deserialize value of type `java.util.ArrayList<{OFFSET_CLASS}>` from "
                               "Boolean value (token `JsonToken.VALUE_FALSE`)"),
        ('{"offsets": [{"key": "val"}]}', f'Unrecognized field "key" (class {OFFSET_CLASS}), not marked as '
                                          'ignorable (2 known properties: "partition", "offset"])'),
        ('{"offsets": [{"partition": []}]}', f"Cannot deserialize value of type `{MAP_TYPE}` from Array value "
                                             "(token `JsonToken.START_ARRAY`)"),
        ('{"offsets": [{"partition": {"id": 0}, "offset": "5"}]}',
         "Cannot construct instance of `java.util.LinkedHashMap` (although at least one Creator exists): no "
         "String-argument constructor/factory method to deserialize from String value ('5')"),
        ('{"offsets": [{"partition": ""}]}', 'Cannot coerce empty String ("") to element of `java.util.LinkedHashMap` '
                                             "(but could if coercion was enabled using `CoercionConfig`)"),
        ('{"offsets": [{"partition": 5.5}]}', f"Cannot deserialize value of type `{MAP_TYPE}` from Floating-point "
                                              "value (token `JsonToken.VALUE_NUMBER_FLOAT`)"),
        ('{"offsets": [{"partition": {"id": 0}, "offset": 5}]}',
         f"Cannot deserialize value of type `{MAP_TYPE}` from Integer value (token `JsonToken.VALUE_NUMBER_INT`)"),
        ('{"offsets": [null]}', "The partition for a source connector offset cannot be null or missing"),
        ('{"offsets": [{"offset": {"seqno": 1}}]}',
         "The partition for a source connector offset cannot be null or missing"),
        ('{"offsets": [{"partition": {"id": {"nested": 1}}, "offset": null}]}',
         "Offsets may only contain primitive types as values, but field id contains MAP"),
        ('{"offsets": [{"partition": {"id": 0}, "offset": {"seqno": [1]}}]}',
         "Offsets may only contain primitive types as values, but field seqno contains ARRAY"),
    ],
)
def test_bad_alter_bodies_are_400(client: TestClient, herder: FakeHerder, body: str, message: str) -> None:
    add(herder)
    assert patch(client, body) == (400, err(400, message))


@pytest.mark.parametrize("body", ["{", '{"offsets": [{"partition": {"id": NaN}}]}', "\xff"])
def test_unparseable_alter_bodies_are_400(client: TestClient, herder: FakeHerder, body: str) -> None:
    add(herder)
    status, answer = patch(client, body)
    assert status == 400
    assert isinstance(answer, dict) and answer["error_code"] == 400


def test_modify_offsets_not_leader_goes_through_forwarding_seam(client: TestClient, herder: FakeHerder) -> None:
    add(herder)
    herder.is_leader = False
    assert patch(client, {"offsets": [seqno(0, 1)]}, forward="false") == (409, err(409, CONFLICTING_OPERATION))
    resp = client.delete("/connectors/a/offsets")
    assert (resp.status_code, resp.json()) == (409, err(409, NO_KNOWN_LEADER))


def test_modify_offsets_times_out_with_500(impatient_client: TestClient, herder: FakeHerder) -> None:
    add(herder)
    herder.hang = True
    assert patch(impatient_client, {"offsets": [seqno(0, 1)]}) == (500, err(500, "Request timed out"))


def test_openapi_lists_offsets_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths["/connectors/{connector}/offsets"]) == {"get", "patch", "delete"}


# ---------------------------------------------------------------------------------------------
# The pure helpers the herder uses
# ---------------------------------------------------------------------------------------------


def test_normalize_offsets_round_trips_and_keeps_the_last_duplicate() -> None:
    result = normalize_offsets("c", [
        ConnectorOffset({"b": 1, "a": "x"}, {"n": 1}),
        ConnectorOffset({"a": "x", "b": 1}, {"n": 2}),  # the same partition, other field order
    ])
    assert list(result.values()) == [ConnectorOffset({"a": "x", "b": 1}, {"n": 2})]
    assert list(result) == [b'["c",{"a":"x","b":1}]']


def test_normalize_offsets_refuses_non_primitive_values_with_400() -> None:
    with pytest.raises(InvalidOffsetsRequest, match="but field p contains ARRAY"):
        normalize_offsets("c", [ConnectorOffset({"p": [1]}, None)])


def test_completion_messages() -> None:
    assert completion_message(True, False) == ALTERED
    assert completion_message(True, True) == RESET
    assert completion_message(False, False) == FRAMEWORK_ALTERED
    assert completion_message(False, True) == FRAMEWORK_RESET
