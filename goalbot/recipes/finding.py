"""A goal finds its recipe, locally and with no model: the recipe's goal is a template ("add the
{{PRODUCT}} to the cart") matched word by word against what the person typed ("put the Walnut
Shelf in my cart", "장바구니에 Walnut Shelf 담아줘"), with each variable bound to the words the
template does not account for.

Words are compared by kind (`lexicon`): the verbs and nouns people use for the same act, in
English and Korean ("put", "place", "add", "담아"; "basket", "cart", "장바구니"; "log in", "sign
in", "로그인") become one word, inflections and Korean particles come off, a verb's particle may
come later ("turn the dark mode on"), a slip of one letter in a word the recipe needs is read as
that word, and small words ("the", "my", "좀") are left out. A match is sure when both goals do
the same acts (a goal that removes is never one that adds; a goal that says "not" is never sure),
every other word of the recipe's goal is in the new one, and the words left over make exactly one
value per variable, without the counts and articles around it ("1", "a single", "1개"). Plain
text beats embeddings here: the acts must be equal, not near, and the values must be cut out of
the goal as the person wrote them, which a similarity score cannot say."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from goalbot.recipes.lexicon import (
    ACTS, COUNT_AFTER, COUNT_BEFORE, HANGUL, JOINING, NEGATIONS, SEPARATORS, SMALL, SPLIT_VERBS, SWITCHED, THINGS,
    VERB_ENDING,
    english_lemmas, korean_stem, near,
)
from goalbot.recipes.variables import VARIABLE

ADDRESS = re.compile(r"https?://\S+")
# A quoted title is one word ("The Hobbit", '결제 오류', ‘…’); an apostrophe inside a word is not a quote.
WORD = re.compile(r"\"[^\"]+\"|“[^”]+”|‘[^’]+’|(?<![\w'])'[^']+'(?![A-Za-z0-9])|\{\{[^}]*\}\}|[\w'’-]+|[,;:]")
QUOTES = "\"“‘'"
ACT_KINDS = frozenset(ACTS.values())
UNKNOWN_ACT = "?act"  # a Korean verb the lexicon does not know: an act, but not one any recipe does


@dataclass
class Word:
    text: str  # as the person wrote it
    kind: str  # folded and mapped: the act's or thing's word, "" for a small word, "{{NAME}}" for a slot
    start: int
    end: int
    joins: bool = False  # a Korean particle that says "and" ends it: the next word names another thing


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
    """The goal as words of a kind, phrases joined: "log in" is one act, and so is "turn … on"."""
    raw = [(m.group(0), m.start(), m.end()) for m in WORD.finditer(text)]
    found: list[Word] = []
    n = 0
    while n < len(raw):
        if raw[n][0][0] in QUOTES and len(raw[n][0]) > 1:  # a quoted title is one word, taken whole
            found.append(Word(raw[n][0][1:-1], raw[n][0][1:-1].casefold(), raw[n][1] + 1, raw[n][2] - 1))
            n += 1
            continue
        slot = VARIABLE.fullmatch(raw[n][0])
        if slot:
            found.append(Word(raw[n][0], "{{" + slot.group(1) + "}}", raw[n][1], raw[n][2]))
            n += 1
            continue
        for size in (3, 2, 1):
            run = raw[n:n + size]
            if len(run) < size:
                continue
            kind, end, joins = _kind_of([w for w, _, _ in run], run[-1][2])
            if kind is not None or size == 1:
                found.append(Word(text[run[0][1]:end], kind or "", run[0][1], end, joins))
                n += size
                break
    return _joined_split_verbs(found)


def _kind_of(tokens: list[str], end: int) -> tuple[str | None, int, bool]:
    """The kind the words stand for, where they end once Korean's particle is off, and whether
    that particle says "and"; None when a phrase of several words is no phrase of the lexicon."""
    folded = [t.casefold().replace("’", "'") for t in tokens]
    stem, tail = korean_stem(folded[-1])
    end -= len(tail)
    if len(folded) > 1:  # "logged in", "turned on": each word as it is or as its lemma
        for phrase in _phrases([*folded[:-1], stem]):
            if phrase in ACTS or phrase in THINGS:
                return ACTS.get(phrase) or THINGS[phrase], end, False
        return None, end, False
    for lemma in english_lemmas(stem) if stem == folded[-1] else [stem]:
        if lemma in ACTS or lemma in THINGS:
            return ACTS.get(lemma) or THINGS[lemma], end, False
    if stem in SEPARATORS:
        return stem, end, False
    if stem in SMALL or folded[0] in SMALL:
        return "", end, False
    if HANGUL.search(stem[-1:]) and VERB_ENDING.search(stem):
        return UNKNOWN_ACT, end, False
    return stem, end, tail in JOINING


def _phrases(tokens: list[str]) -> list[str]:
    """Every reading of the words with each one as written or as one of its lemmas."""
    readings = [""]
    for token in tokens:
        readings = [f"{before} {lemma}".strip() for before in readings for lemma in dict.fromkeys(english_lemmas(token))]
    return readings


def _kinds(word: Word) -> set[str]:
    """What a word says: "다크모드" says both "dark" and "mode"."""
    return set(word.kind.split(" ")) if word.kind else set()


def _joined_split_verbs(found: list[Word]) -> list[Word]:
    """"turn the dark mode on": the verb and its particle a few words on are one act, "turn on";
    and "dark mode on" with no verb at all says the same, where "on" ends what is asked."""
    for n, head in enumerate(found):
        if head.text.casefold() in SWITCHED and not any(w.kind in SPLIT_VERBS for w in found[max(0, n - 4):n]):
            after = found[n + 1:n + 3]
            if all(not w.kind or w.kind in SEPARATORS or w.kind == UNKNOWN_ACT for w in after):
                head.kind = SWITCHED[head.text.casefold()]
                for w in after:
                    if w.kind == UNKNOWN_ACT:  # "on 해줘": the 해줘 is the "on"
                        w.kind = ""
                continue
        particles = SPLIT_VERBS.get(head.kind)
        if not particles:
            continue
        for later in found[n + 1:n + 5]:
            if later.kind in particles or later.text.casefold() in particles:
                head.kind = ACTS.get(f"{head.text.casefold()} {later.text.casefold()}", head.kind)
                later.kind = ""
                break
    return found


def match(goal: str, template: str) -> GoalMatch | None:
    """How `template` (a recipe's goal, its variables as {{NAME}}) fits `goal`; None when the two
    goals do different acts, or the goal says not to."""
    goal = ADDRESS.sub(lambda found: " " * len(found.group(0)), goal)  # "… at https://…": where, not what
    said, wanted = words(goal), words(template)
    literal = {kind for w in wanted if not w.kind.startswith("{{") and w.kind not in ACT_KINDS
               for kind in _kinds(w) if kind not in SEPARATORS}
    acts_wanted = {w.kind for w in wanted if w.kind in ACT_KINDS}
    _mend_slips(said, literal | acts_wanted)
    tail = _tail_value(goal, said, wanted)
    if tail is not None:
        said = tail
    if any(w.kind in NEGATIONS or w.text.casefold() in NEGATIONS for w in said):
        return None  # "don't turn on dark mode": never sure, whatever else it says
    acts_said = {w.kind for w in said if w.kind in ACT_KINDS or w.kind == UNKNOWN_ACT}
    if not acts_said and acts_wanted == {"add"} and _put_in_cart(said):
        acts_said = {"add"}  # "I need a Tea Towel in my cart": being in the cart is the act
    if acts_said != acts_wanted:
        return None
    slots = [w.kind[2:-2] for w in wanted if w.kind.startswith("{{")]
    have = {kind for w in said for kind in _kinds(w)}
    missing = sorted(literal - have)
    runs = _runs(goal, said, literal | acts_said)
    if missing:
        return GoalMatch(sure=False, why=f"the goal does not say {', '.join(missing)}")
    if len(runs) != len(set(slots)):
        left = "; ".join(runs) or "nothing"
        return GoalMatch(sure=False, why=f"the words left ({left}) do not make one value for each of "
                                         f"{', '.join(dict.fromkeys(slots)) or 'no variable'}")
    return GoalMatch(sure=True, values=dict(zip(dict.fromkeys(slots), runs)))


def _put_in_cart(said: list[Word]) -> bool:
    """"… in my cart", "… into the basket": the cart named after "in" or "into"."""
    for n, w in enumerate(said):
        if "cart" in _kinds(w):
            before = [x.text.casefold() for x in said[max(0, n - 3):n]]
            return "in" in before or "into" in before
    return False


def _tail_value(goal: str, said: list[Word], wanted: list[Word]) -> list[Word] | None:
    """A recipe's goal that ends in a variable after a word of its own ("… titled {{SUMMARY}}",
    "search for {{QUERY}}"): what follows that word in the goal is the value, whatever it says
    ("search for how to turn off email notifications"), as long as it asks for nothing after it
    ("…, then delete it"). The goal's words with that value as one word, or None."""
    if len(wanted) < 2 or not wanted[-1].kind.startswith("{{"):
        return None
    marker = wanted[-2]
    if marker.kind in ACT_KINDS or marker.text.casefold() in ("the", "a", "an", "my", "your", "our"):
        return None
    at = next((n for n, w in enumerate(said) if marker.kind and marker.kind in _kinds(w)
               or w.text.casefold() == marker.text.casefold()), None)
    if at is None or at + 1 >= len(said):
        return None
    rest = said[at + 1:]
    while rest and (not rest[-1].kind or rest[-1].kind in SEPARATORS):  # "… please", "… ?"
        rest.pop()
    # "… titled X and assign it to me" asks for more; "'X' 제목으로 티켓 만들어줘" puts its act last.
    if not rest or any(w.kind in SEPARATORS for w in rest) or rest[-1].kind in ACT_KINDS | {UNKNOWN_ACT}:
        return None
    text = goal[rest[0].start:rest[-1].end]
    if text[:1] in QUOTES and text[-1:] in QUOTES and len(text) > 1:
        text = text[1:-1]
    start = rest[0].start + (1 if goal[rest[0].start] in QUOTES else 0)
    return [*said[:at + 1], Word(text, text.casefold(), start, start + len(text))]


def _mend_slips(said: list[Word], needed: set[str]) -> None:
    """A word one letter off a word the recipe needs ("trun", "downlaod", "장바구리") is read as
    it, when no word of the goal says it already; only towards the recipe's own words, so a slip
    never turns into another act."""
    have = {w.kind for w in said}
    spelled = {key: kind for key, kind in (*ACTS.items(), *THINGS.items()) if kind in needed and " " not in key}
    spelled |= {head: head for head, particles in SPLIT_VERBS.items()  # "trun" … "on" is "turn on"
                if any(ACTS.get(f"{head} {particle}") in needed for particle in particles)}
    for w in said:
        if not w.kind or w.kind in ACT_KINDS or w.kind in THINGS.values() or w.kind in SPLIT_VERBS:
            continue
        close = {kind for key, kind in spelled.items() if kind not in have and near(w.kind, key)}
        if len(close) == 1:
            w.kind = close.pop()
            w.text = next(key for key, kind in spelled.items() if kind == w.kind and near(w.text.casefold(), key)
                          ) if w.kind in SPLIT_VERBS else w.text
            have.add(w.kind)
    _joined_split_verbs(said)


def _runs(goal: str, said: list[Word], known: set[str]) -> list[str]:
    """The spans of the goal no word of the template accounts for, as the person wrote them,
    without the counts around them ("1 Tea Towel", "티 타월 1개"); small words inside a span are
    kept ("Pride and Prejudice" is cut at "and", though)."""
    runs: list[list[Word]] = [[]]
    for w in said:
        if w.kind and _kinds(w) <= known or w.kind in SEPARATORS:
            runs.append([])
        elif w.kind or runs[-1]:
            runs[-1].append(w)
            if w.joins:  # "티 타월이랑 구리 주전자": two things
                runs.append([])
    spans = []
    for run in runs:
        while run and (not run[0].kind or COUNT_BEFORE.match(run[0].text)):  # "one Tea Towel", "a single …"
            run.pop(0)
        while run and (not run[-1].kind or COUNT_AFTER.match(run[-1].text)):  # "the Oak Desk to", "… 1개"
            run.pop()
        if run:
            start, end = run[0].start, run[-1].end
            while end < len(goal) and goal[end] == ")" and "(" in goal[start:end]:  # "Kettle (2 l)"
                end += 1
            spans.append(goal[start:end])
    return spans
