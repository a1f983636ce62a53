"""What a rerun is asked to do: the recipe, today's values, and what the store knows that helps it
(healing memory, the site's banners and sign-ins, the blocks it runs), read before it starts."""

from __future__ import annotations

from pydantic import BaseModel, Field

from goalbot.recipes.model import Evidence, Recipe


class Rerun(BaseModel):
    recipe: Recipe
    values: dict[str, str] = Field(default_factory=dict, description="--var: the recipe's {{variables}}.")
    healed: dict[int, Evidence] = Field(default_factory=dict, description="Healing memory: the evidence "
                                        "earlier reruns found each action's element by (position → evidence).")
    secrets_at: str | None = Field(None, description="The address whose site the secrets may be typed on "
                                   "without a GO (with no --allow-domain): never one a recipe file names.")
    interstitials: list[Evidence] = Field(default_factory=list, description="Banners and dialogs other recipes "
                                          "recorded in this store dismissed on this site: one that blocks "
                                          "this rerun is dismissed as they did.")
    blocks: dict[str, Recipe] = Field(default_factory=dict, description="The recipes its steps run as blocks, "
                                      "by `Block.key()`, read from the store before the rerun starts.")
    sign_ins: list[Recipe] = Field(default_factory=list, description="The site's sign-in recipes: the one "
                                   "whose first element is on the page runs when a page asks to sign in where "
                                   "the recipe expected the app (a session that expired).")
    no_sign_in: str = Field("", description="Why there is none, for the checkpoint that asks the person.")
    found: str = Field("", description="The goal typed found this recipe (\"from recipe cart v1, PRODUCT = …\"): "
                                       "its plan is the person's to approve, as a planned one is.")
    unsure: str = Field("", description="Why the goal's words did not surely fit the found recipe's: the "
                                        "matcher binds its variables first, and the person chooses.")
