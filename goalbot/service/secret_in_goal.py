"""Spotting a secret written into a goal. A goal goes to the model, the store, the log and every
report; a password or key in it would leak to all of them. What is caught (the manual lists it):

- a cue word then a value: password, passwd, pwd, pass, passcode, passphrase, PIN, token, API key,
  access key, secret, secret word, 비밀번호, 비번, 암호, 패스워드, 인증번호, 토큰 — then `:`, `=`,
  `is`/`was`, or `는`/`은`/`:`, and a value; or the cue and directly a value that looks made up
  (it holds a digit, a sign, or a capital after its first letter, or is quoted) — after
  passphrase, passcode, passwd, pwd or secret word, any word that is not a common one;
- a `user / secret` or `user:secret` pair in a goal that speaks of credentials or a login;
- a key by its format anywhere: `sk-…`/`sk_live_…`, `ghp_…`/`github_pat_…`, `AKIA…`, `xox?-…`,
  `AIza…`, a JWT (`eyJ….….…`), a PEM private key.

Not caught: a secret with no cue and no known format ("log in as bob with tulip"), or a plain word
straight after password, PIN, token or key ("the password tulip": too many goals say "the password
field"). `<secret:NAME>` is how a goal names
a secret; it is never taken for one.
"""

from __future__ import annotations

import re

from goalbot.agents.secrets import REFERENCE

_CUE_EN = (r"pass(?:word|wd|code|phrase)?|pwd|pw|pin|(?:api|access|secret)[ _-]?key|apikey|token"
           r"|secret(?:[ _-]?word)?|credentials?")
_SEPARATOR = r"\s*(?:[:=]|\bis\b|\bwas\b|->)\s*"
# A cue so plain that any word straight after it is its value ("the passphrase tulip").
_STRONG_CUES = {"passphrase", "passcode", "passwd", "pwd", "secret word", "secret-word", "secret_word", "secretword"}
# Words that follow a cue without being its value ("the password is wrong", "password: reset").
_NOT_A_VALUE = {
    "a", "an", "the", "my", "your", "his", "her", "their", "our", "this", "that", "it", "in", "on", "for",
    "to", "and", "or", "with", "from", "of", "at", "by", "field", "box", "input", "page", "form", "prompt",
    "screen", "settings", "reset", "change", "changed", "expired", "wrong", "incorrect", "invalid",
    "required", "missing", "correct", "weak", "strong", "empty", "saved", "stored", "set", "not", "too",
    "manager", "hidden", "shown", "secret", "unknown", "new", "old", "same", "below", "above", "there",
    "here", "again", "entry", "rules", "policy", "out", "so", "as", "if", "when", "be", "you", "me",
}
_CUE_THEN_SEPARATOR = re.compile(rf"\b({_CUE_EN})\b{_SEPARATOR}(\"[^\"]+\"|'[^']+'|\S+)", re.IGNORECASE)
_CUE_THEN_VALUE = re.compile(rf"\b({_CUE_EN})\b\s+(\"[^\"]+\"|'[^']+'|\S+)", re.IGNORECASE)
_CUE_KO = re.compile(r"(비밀\s?번호|비번|암호|패스워드|인증\s?번호|토큰|시크릿)(?:는|은|가|이|를|을|로|:|=)?\s*[:=]?\s*(\S+)")
_CREDENTIAL_TALK = re.compile(r"\b(credentials?|log-?in details|log-?in info|username and password)\b|계정\s?정보",
                              re.IGNORECASE)
_PAIR = re.compile(r"(?<![\w/:.])([\w.@+-]{2,})\s*(?:/|:)\s*([^\s/]{3,})")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_KEY_FORMATS = re.compile(
    r"\bsk[-_](?:live[-_]|test[-_]|proj[-_])?[A-Za-z0-9_-]{12,}"
    r"|\b[rp]k_(?:live|test)_[A-Za-z0-9]{12,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"
    r"|\bAIza[0-9A-Za-z_-]{30,}"
    r"|\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
)
_TRAILING = ".,;!?)]}\"'"
# A reference with the quotes or brackets a person puts round it: `password "<secret:PW>"` is the
# form the refusal's hint asks for, so the marks go with the reference (left alone, `" "` would
# read as a quoted value). Real values in quotes have no reference inside and are still caught.
_ENCLOSED_REFERENCE = re.compile(
    r"([\"'`\[(«“‘{]?)\s*" + REFERENCE.pattern + r"\s*([\"'`\])»”’}]?)")


def _bare(value: str) -> str:
    return value.strip(_TRAILING + "(['\"")


def _looks_made_up(value: str) -> bool:
    """A value nobody would write as a plain word: a digit, a sign, or a capital inside it."""
    if value[:1] in "\"'" and len(value) > 2:
        return True
    word = _bare(value)
    if len(word) < 4 or word.lower() in _NOT_A_VALUE:
        return False
    return any(c.isdigit() for c in word) or any(not c.isalnum() for c in word) or any(c.isupper() for c in word[1:])


def secret_cue(goal: str) -> str | None:
    """What in `goal` looks like a secret written in the clear — the cue or the format, never the
    value itself — or None."""
    # "it" stands in for the reference: a word no cue takes for a value, so the cue is spent on it
    # and the next cue ("pin <secret:P> token 'x9'") is still read.
    text = _ENCLOSED_REFERENCE.sub(" it ", goal)
    if found := _KEY_FORMATS.search(text):
        return "a key in a known format" if not found.group(0).startswith("-----") else "a private key"
    for match in _CUE_THEN_SEPARATOR.finditer(text):
        value = _bare(match.group(2))
        if value and value.lower() not in _NOT_A_VALUE and not value.startswith("<"):
            return f'"{match.group(1)}" and a value after it'
    for match in _CUE_THEN_VALUE.finditer(text):
        strong = match.group(1).lower() in _STRONG_CUES and _bare(match.group(2)).lower() not in _NOT_A_VALUE
        if strong or _looks_made_up(match.group(2)):
            return f'"{match.group(1)}" and a value after it'
    for match in _CUE_KO.finditer(text):
        value = _bare(match.group(2))
        if len(value) >= 4 and re.search(r"[A-Za-z0-9]", value):
            return f'"{match.group(1)}" and a value after it'
    if _CREDENTIAL_TALK.search(text):
        for match in _PAIR.finditer(_URL.sub(" ", text)):
            if _bare(match.group(2)).lower() not in _NOT_A_VALUE:
                return "a user and a secret given as credentials"
    return None
