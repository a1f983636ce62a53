"""What the network rung keeps of a response: a credential is told by what it is (its shape, or
that the request carried it, or that the person handed it in), not only by its field's name; an
address keeps no token; ordinary data (ids, dates, slugs, prices, record UUIDs) stays readable."""

from __future__ import annotations

import base64
import random
import secrets

import pytest

from goalbot.agents.secrets import Secrets
from goalbot.operators.browser.fetched import (_site, carried_credentials, credential_name, generalised,
                                               looks_like_credential, without_credentials)
from goalbot.operators.json_places import Fetched, find_place, read_place, without_secrets

# Tokens made at collection come from a fixed seed: every xdist worker must collect the same tests.
_MAKE = random.Random(71)


def _hex(size: int) -> str:
    return _MAKE.randbytes(size).hex()


def _urlsafe(size: int) -> str:
    return base64.urlsafe_b64encode(_MAKE.randbytes(size)).rstrip(b"=").decode()


JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"


@pytest.mark.parametrize("value", [
    JWT, f"Bearer {_urlsafe(12)}", f"token {_hex(6)}", _hex(16),
    _hex(32), _urlsafe(32), "AKIAIOSFODNN7EXAMPLE", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    f"ghp_{_urlsafe(27)}", f"see {_hex(20)} here"])
def test_a_value_shaped_like_a_credential_is_one(value: str) -> None:
    assert looks_like_credential(value)


@pytest.mark.parametrize("value", [
    "2026-11-01T10:00:00.000Z", "the-best-running-shoes-2026-edition", "SKU-00001", "Item 5000", "삼성전자",
    "8f14e45f-ceea-467f-a0e6-3b2c1a9d0e7f", "https://example.com/images/product-12345.jpg", "$1,234.50",
    "Acme Widgets Ltd.", "NWM-20260037", "Real-time quotes, Level 1", "token", ""])
def test_ordinary_data_is_not_a_credential(value: str) -> None:
    assert not looks_like_credential(value)


@pytest.mark.parametrize(("name", "in_a_body", "in_an_address"), [
    ("sessionid", True, True), ("jwt", True, True), ("access_key", True, True), ("X-Access-Key", True, True),
    ("PHPSESSID", True, True), ("accesstoken", True, True), ("X-Amz-Signature", True, True), ("sig", True, True),
    ("key", False, True), ("secretary", False, False), ("total_tokens", False, False), ("author", False, False),
    ("keyboard", False, False), ("sessions", False, False)])
def test_a_name_says_a_credential_and_a_bare_key_is_one_in_an_address(
        name: str, in_a_body: bool, in_an_address: bool) -> None:
    assert credential_name(name) is in_a_body
    assert credential_name(name, alone_key=True) is in_an_address


def test_a_body_keeps_its_data_and_loses_every_credential_in_it() -> None:
    echoed = "c00kie-value-778"
    body = {"rows": [{"id": 1, "price": 9.5, "by": "Kim"}], "session_token": "x", "viewer": echoed,
            "auth": {"header": f"Bearer {secrets.token_urlsafe(12)}"}, "list": [JWT, "ok"],
            "by_key": {secrets.token_hex(16): 1}, "empty": None}
    carried = carried_credentials("http://a.test/api", {"cookie": f"theme=dark; sid={echoed}"}, {})
    assert without_credentials(body, carried) == {"rows": [{"id": 1, "price": 9.5, "by": "Kim"}],
                                                  "list": [None, "ok"], "by_key": {}, "empty": None}


def test_the_values_an_exchange_carried_are_known_and_a_setting_is_not_one() -> None:
    carried = carried_credentials(
        "http://a.test/api?key=k12ab34cd&page=2",
        {"cookie": "theme=dark; sessionid=abcdef123", "authorization": "Bearer tok-998877", "x-access-key": "xak-1234"},
        {"set-cookie": "csrftoken=zz9911aa; Path=/"})
    assert carried == {"abcdef123", "Bearer tok-998877", "tok-998877", "xak-1234", "k12ab34cd", "zz9911aa"}


def test_an_address_keeps_no_token_and_a_rerun_with_a_new_token_still_finds_it() -> None:
    first = generalised(f"http://a.test/api/t/{JWT}/prices?token=abc123def&day=1&{secrets.token_hex(20)}")
    later = generalised(f"http://a.test/api/t/{JWT[:-4]}ABCD/prices?day=2&token=zzz999yyy")
    assert first == later == "http://a.test/api/t/*/prices?day=&token="
    assert generalised("http://kim:hunter2@a.test/api") == "http://a.test/api"
    body = {"series": [{"day": "2026-11-01", "close": 1.5}, {"day": "2026-11-02", "close": 2.5}]}
    found = find_place({"closes": [{"close": 1.5}, {"close": 2.5}]}, [Fetched(first, body)])
    assert found is not None and found[0].words() == "GET /api/t/*/prices?day=…&token=…"
    today = {"series": [{"day": "2026-11-03", "close": 7.0}]}
    assert read_place(found[0], [Fetched(later, today)]) == ({"closes": [{"close": 7.0}]}, [])


def test_a_secret_the_person_handed_in_is_read_from_no_response() -> None:
    person = Secrets({"PW": "Correct-Horse-7"})
    responses = [Fetched("http://a.test/api/u/Correct-Horse-7/rows", {"rows": [1, 2]}),
                 Fetched("http://a.test/api/rows", {"rows": [1, 2], "note": "Welcome back, Correct-Horse-7",
                                                    "Correct%2DHorse%2D7": 1, "list": ["Q29ycmVjdC1Ib3JzZS03", "ok"]})]
    assert without_secrets(responses, person.scrub) == [
        Fetched("http://a.test/api/rows", {"rows": [1, 2], "list": [None, "ok"]})]
    assert without_secrets(responses[1:], Secrets().scrub) == responses[1:]  # no secrets: as they were


@pytest.mark.parametrize(("page", "fetched", "same"), [
    ("http://www.shop.test/", "http://api.shop.test/x", True),
    ("http://127.0.0.1:8000/", "http://127.0.0.1:8001/", False),
    ("http://127.0.0.1:8000/", "http://localhost:8000/", False), ("http://shop.co.uk/", "http://evil.co.uk/", False),
    ("http://www.shop.co.uk/", "http://api.shop.co.uk/", True), ("https://shop.test/", "http://shop.test/", False)])
def test_a_site_is_its_scheme_registrable_name_and_port(page: str, fetched: str, same: bool) -> None:
    assert (_site(page) == _site(fetched)) is same
