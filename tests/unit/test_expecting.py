"""What a rerun checks after an action: the address by whole path segments, and an announcement
holding a value said as it is — a look-alike product's page or message is not the one recorded."""

from __future__ import annotations

from goalbot.operators.base import Observation, Text
from goalbot.recipes.expecting import path_fits, unsaid


def test_an_address_is_compared_by_whole_segments() -> None:
    assert path_fits("/product/walnut-shelf", "/product/walnut-shelf")
    assert not path_fits("/product/walnut-shelf", "/product/walnut-shelf-bracket")
    assert path_fits("/product/walnut-shelf", "/en/product/walnut-shelf")
    assert path_fits("/product/", "/product/bk-1")  # a folder kept where the rest varies
    assert not path_fits("/product/", "/products/bk-1")
    assert path_fits("/", "/anything")


def said(text: str) -> Observation:
    return Observation(url="http://shop.test/p", title="p", items=[Text(text=text, alert=True)])


def test_an_announcement_holding_a_value_must_say_it_as_it_is() -> None:
    wanted = ["Walnut Shelf added to your cart"]
    exact = frozenset(wanted)
    assert unsaid(wanted, said("Walnut Shelf Bracket added to your cart"), str, exact) == wanted
    assert unsaid(wanted, said("Walnut Shelf added to your cart (1 item)"), str, exact) == []
    # With no value in it, a little drift still counts as said.
    assert unsaid(["Saved at 12:01"], said("Saved at 12:03"), str) == []


def test_a_wild_number_in_an_address_is_any_number_and_the_rest_must_fit() -> None:
    assert path_fits("/admin/auth/user/*/change/", "/admin/auth/user/5/change/")
    assert path_fits("/admin/auth/user/*/change/", "/admin/auth/user/1234/change/")
    assert not path_fits("/admin/auth/user/*/change/", "/admin/auth/user/5/delete/")
    assert not path_fits("/admin/auth/user/*/change/", "/admin/auth/user/add/")  # the form again: not saved
    assert not path_fits("/admin/auth/user/*/change/", "/admin/auth/user/bob/change/")
    assert path_fits("/ticket/t-*", "/ticket/t-12") and not path_fits("/ticket/t-*", "/ticket/t-12x")


def test_a_wild_number_in_an_announcement_is_any_number_and_a_value_in_it_still_counts() -> None:
    wanted = ["Ticket #* “Printer jams” created"]
    exact = frozenset(wanted)  # it held the person's value: said as it is, or not at all
    assert unsaid(wanted, said("Ticket #13 “Printer jams” created"), str, exact) == []
    assert unsaid(wanted, said("Ticket #13 “Printer jams again” created"), str, exact) == wanted
    assert unsaid(wanted, said("Ticket #new “Printer jams” created"), str, exact) == wanted
    assert unsaid(["Fields marked * are required"], said("Fields marked * are required"), str,
                  frozenset({"Fields marked * are required"})) == []
