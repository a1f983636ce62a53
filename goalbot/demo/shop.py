"""The demo's shop, beside its sign-in: a product table to read data out of, to choose from by a
policy, and a cart that keeps what was added, so each part of the guide has a page to try it on
with no key. `/api/state` shows the cart, so what was bought is the site's word, not the agent's."""

from __future__ import annotations

import html
from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    name: str
    price: float
    in_stock: bool

    @property
    def slug(self) -> str:
        return self.name.lower().replace(" ", "-")


CATALOGUE = (
    Product("Oak Desk", 129.00, True),
    Product("Desk Lamp", 24.00, True),
    Product("Reading Lamp", 31.50, True),
    Product("Clip Lamp", 19.00, False),
    Product("Floor Lamp", 58.00, True),
    Product("Walnut Shelf", 45.00, True),
)
BY_SLUG = {product.slug: product for product in CATALOGUE}


def shop_page() -> tuple[str, str]:
    rows = "\n".join(f"""  <tr><td>{html.escape(p.name)}</td><td>${p.price:.2f}</td>
      <td>{'In stock' if p.in_stock else 'Sold out'}</td>
      <td><form method="post" action="/shop/cart"><input type="hidden" name="item" value="{p.slug}">
        <button type="submit"{'' if p.in_stock else ' disabled'}>Add to cart</button></form></td></tr>"""
                     for p in CATALOGUE)
    return "Shop", f"""
<h1>Acme Shop</h1>
<p><a href="/shop/cart">Your cart</a></p>
<table id="products">
  <thead><tr><th>Product</th><th>Price</th><th>Stock</th><th></th></tr></thead>
  <tbody>
{rows}
  </tbody>
</table>"""


def cart_page(items: list[str]) -> tuple[str, str]:
    listed = "\n".join(f"  <li>{html.escape(BY_SLUG[slug].name)} · ${BY_SLUG[slug].price:.2f}</li>"
                       for slug in items if slug in BY_SLUG)
    body = f"<ul id=\"cart\">\n{listed}\n</ul>" if listed else "<p>Your cart is empty.</p>"
    return "Cart", f"""
<h1>Your cart</h1>
{body}
<p><a href="/shop">Back to the shop</a></p>"""
