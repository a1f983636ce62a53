"""A goal finds its recipe, locally and with no model: the recipe's goal is a template ("add the
{{PRODUCT}} to the cart") matched word by word against what the person typed ("put the Walnut
Shelf in my cart"), with each variable bound to the words the template does not account for.

Words are compared after folding case and mapping each to its kind: the verbs and nouns people
use for the same act ("put", "place" and "add"; "basket" and "cart"; "log in" and "sign in")
become one word, and small words ("the", "my", "to") are left out. A match is sure when both
goals do the same acts (a goal that removes is never one that adds), every other word of the
recipe's goal is in the new one, and the words left over make exactly one value per variable.
Plain text beats embeddings here: the acts must be equal, not near, and the values must be cut
out of the goal as the person wrote them, which a similarity score cannot say."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from goalbot.recipes.variables import VARIABLE

# Phrases first (longest first), then words: each to the word that stands for its kind.
ACTS: dict[str, str] = {
    "add": "add", "put": "add", "place": "add", "insert": "add", "throw": "add", "stick": "add",
    "remove": "remove", "delete": "remove", "drop": "remove", "take out": "remove", "get rid of": "remove",
    "buy": "buy", "purchase": "buy", "order": "buy", "check out": "buy", "checkout": "buy",
    "sign in": "sign_in", "log in": "sign_in", "login": "sign_in", "signin": "sign_in", "log on": "sign_in",
    "sign out": "sign_out", "log out": "sign_out", "logout": "sign_out",
    "turn on": "enable", "switch on": "enable", "enable": "enable", "activate": "enable",
    "turn off": "disable", "switch off": "disable", "disable": "disable", "deactivate": "disable",
    "download": "download", "fetch": "download",
    "search": "search", "look up": "search", "look for": "search", "find": "search",
    "book": "book", "reserve": "book",
    "pick": "choose", "choose": "choose", "select": "choose",
    "read": "read", "list": "read", "extract": "read",
    "open": "open", "go to": "open", "visit": "open", "show": "open",
    "send": "send", "submit": "send", "post": "send",
    "save": "save", "store": "save",
}
THINGS: dict[str, str] = {"basket": "cart", "bag": "cart", "trolley": "cart", "cart": "cart",
                          "settings": "settings", "preferences": "settings", "options": "settings",
                          "invoice": "invoice", "invoices": "invoice", "bill": "invoice", "bills": "invoice"}
SMALL = frozenset({"the", "a", "an", "my", "our", "your", "to", "into", "in", "from", "of", "on", "for", "at",
                   "with", "please", "me", "it", "this", "that", "some", "up", "then", "now", "just", "also"})
SEPARATORS = frozenset({"and", "or", ",", ";", "plus"})
ADDRESS = re.compile(r"https?://\S+")
WORD = re.compile(r"\"[^\"]+\"|“[^”]+”|\{\{[^}]*\}\}|[\w'’-]+|[,;]")


@dataclass
class Word:
    text: str  # as the person wrote it
    kind: str  # folded and mapped: the act's or thing's word, "" for a small word, "{{NAME}}" for a slot
    start: int
    end: int


@dataclass
class GoalMatch:
    """How a stored recipe's goal fits a new one: `sure`, with the values bound, or `unsure` with
    why; a goal of other acts is no match at all (None from `match`)."""

    sure: bool
    values: dict[str, str] = field(default_factory=dict)
    why: str = ""


def found_line(name: str, version: int, values: dict[str, str]) -> str:
    """What the plan dialog and the log say of a recipe the goal found: "from recipe cart v1,
    PRODUCT = Copper Teapot"."""
    return f"from recipe {name} v{version}" + "".join(f", {key} = {value}" for key, value in values.items())


def words(text: str) -> list[Word]:
    """The goal as words of a kind, phrases joined: "log in" is one act."""
    raw = [(m.group(0), m.start(), m.end()) for m in WORD.finditer(text)]
    found: list[Word] = []
    n = 0
    while n < len(raw):
        if raw[n][0][0] in "\"“":  # a quoted title is one word, taken whole: "The Hobbit"
            found.append(Word(raw[n][0][1:-1], raw[n][0][1:-1].casefold(), raw[n][1] + 1, raw[n][2] - 1))
            n += 1
            continue
        slot = VARIABLE.fullmatch(raw[n][0])
        if slot:
            found.append(Word(raw[n][0], "{{" + slot.group(1) + "}}", raw[n][1], raw[n][2]))
            n += 1
            continue
        for size in (3, 2, 1):
            phrase = " ".join(w.casefold().replace("’", "'") for w, _, _ in raw[n:n + size])
            if len(raw[n:n + size]) == size and (phrase in ACTS or phrase in THINGS or size == 1):
                kind = ACTS.get(phrase) or THINGS.get(phrase) or ("" if phrase in SMALL else phrase)
                found.append(Word(text[raw[n][1]:raw[n + size - 1][2]], kind, raw[n][1], raw[n + size - 1][2]))
                n += size
                break
    return found


def match(goal: str, template: str) -> GoalMatch | None:
    """How `template` (a recipe's goal, its variables as {{NAME}}) fits `goal`; None when the two
    goals do different acts."""
    goal = ADDRESS.sub(lambda found: " " * len(found.group(0)), goal)  # "… at https://…": where, not what
    said, wanted = words(goal), words(template)
    acts_said = {w.kind for w in said if w.kind in ACTS.values()}
    acts_wanted = {w.kind for w in wanted if w.kind in ACTS.values()}
    if acts_said != acts_wanted:
        return None
    literal = {w.kind for w in wanted if w.kind and not w.kind.startswith("{{") and w.kind not in ACTS.values()}
    slots = [w.kind[2:-2] for w in wanted if w.kind.startswith("{{")]
    have = {w.kind for w in said}
    missing = sorted(literal - have)
    runs = _runs(goal, said, literal | acts_said)
    if missing:
        return GoalMatch(sure=False, why=f"the goal does not say {', '.join(missing)}")
    if len(runs) != len(set(slots)):
        left = "; ".join(runs) or "nothing"
        return GoalMatch(sure=False, why=f"the words left ({left}) do not make one value for each of "
                                         f"{', '.join(dict.fromkeys(slots)) or 'no variable'}")
    return GoalMatch(sure=True, values=dict(zip(dict.fromkeys(slots), runs)))


def _runs(goal: str, said: list[Word], known: set[str]) -> list[str]:
    """The spans of the goal no word of the template accounts for, as the person wrote them;
    small words inside a span are kept ("Pride and Prejudice" is cut at "and", though)."""
    runs: list[list[Word]] = [[]]
    for w in said:
        if w.kind in known or w.kind in SEPARATORS:
            runs.append([])
        elif w.kind or runs[-1]:
            runs[-1].append(w)
    spans = []
    for run in runs:
        while run and not run[-1].kind:  # "the Oak Desk to" ends at "Desk"
            run.pop()
        if run:
            start, end = run[0].start, run[-1].end
            while end < len(goal) and goal[end] == ")" and "(" in goal[start:end]:  # "Kettle (2 l)"
                end += 1
            spans.append(goal[start:end])
    return spans
