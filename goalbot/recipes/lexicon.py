"""The words goals are written in, English and Korean, each mapped to the kind it stands for: the
acts people ask for ("put", "place", "add", "담아", "넣어" are one act) and the things they name
("basket", "cart", "장바구니"; "다크" is "dark"). A goal and a recipe's goal are compared by
kinds, so a Korean goal finds a recipe recorded in English and the other way round.

Korean writes particles and verb endings onto the word ("장바구니에", "담아줘", "로그인하고"):
`korean_stem` takes them off, so the word's kind is read from its stem and a value ends where the
person's noun does ("Tea Towel을" is the value "Tea Towel")."""

from __future__ import annotations

import re

# Phrases and words of each act, English and Korean: each to the word that stands for its kind.
ACTS: dict[str, str] = {
    "add": "add", "put": "add", "place": "add", "insert": "add", "throw": "add", "stick": "add", "drop in": "add",
    "pop": "add",
    "담": "add", "담아": "add", "넣": "add", "넣어": "add", "추가": "add",
    "remove": "remove", "delete": "remove", "drop": "remove", "take out": "remove", "get rid of": "remove",
    "빼": "remove", "삭제": "remove", "제거": "remove", "지워": "remove", "지우": "remove",
    "buy": "buy", "purchase": "buy", "order": "buy", "check out": "buy", "checkout": "buy",
    "구매": "buy", "구입": "buy", "주문": "buy", "결제": "buy", "사": "buy",
    "sign in": "sign_in", "log in": "sign_in", "login": "sign_in", "signin": "sign_in", "log on": "sign_in",
    "log into": "sign_in", "sign into": "sign_in", "로그인": "sign_in", "로그 인": "sign_in", "접속": "sign_in",
    "sign out": "sign_out", "log out": "sign_out", "logout": "sign_out", "signout": "sign_out",
    "로그아웃": "sign_out", "로그 아웃": "sign_out",
    "turn on": "enable", "switch on": "enable", "enable": "enable", "activate": "enable",
    "켜": "enable", "활성화": "enable",
    "turn off": "disable", "switch off": "disable", "disable": "disable", "deactivate": "disable",
    "꺼": "disable", "끄": "disable", "비활성화": "disable", "해제": "disable", "mute": "disable", "stop": "disable",
    "download": "download", "fetch": "download", "다운로드": "download", "내려받": "download", "다운받": "download",
    "다운": "download",
    "search": "search", "look up": "search", "look for": "search", "find": "search",
    "검색": "search", "찾아": "search", "찾": "search",
    "book": "book", "reserve": "book", "예약": "book",
    "pick": "choose", "choose": "choose", "select": "choose", "선택": "choose", "골라": "choose", "고르": "choose",
    "read": "read", "list": "read", "extract": "read", "읽어": "read", "추출": "read",
    "open": "open", "go to": "open", "visit": "open", "show": "open", "열어": "open", "이동": "open",
    "send": "send", "submit": "send", "post": "send", "보내": "send", "전송": "send", "제출": "send",
    "save": "save", "store": "save", "저장": "save",
    "create": "create", "make": "create", "raise": "create",
    "만들": "create", "만들어": "create", "생성": "create", "작성": "create", "등록": "create",
}
# Verbs whose particle may come later: "turn the dark mode on" is "turn on".
SPLIT_VERBS: dict[str, tuple[str, ...]] = {"turn": ("on", "off"), "switch": ("on", "off"), "log": ("in", "out"),
                                           "sign": ("in", "out"), "take": ("out",), "check": ("out",)}
THINGS: dict[str, str] = {
    "basket": "cart", "bag": "cart", "trolley": "cart", "cart": "cart", "장바구니": "cart", "카트": "cart",
    "shopping cart": "cart", "shopping basket": "cart", "shopping bag": "cart",
    "wishlist": "wishlist", "wish list": "wishlist", "위시리스트": "wishlist", "찜 목록": "wishlist",
    "찜목록": "wishlist", "관심상품": "wishlist", "관심 상품": "wishlist",
    "settings": "settings", "preferences": "settings", "options": "settings", "설정": "settings",
    "환경설정": "settings",
    "invoice": "invoice", "bill": "invoice", "청구서": "invoice", "인보이스": "invoice", "송장": "invoice",
    "dark": "dark", "night": "dark", "다크": "dark", "어두운": "dark", "야간": "dark",
    "mode": "mode", "theme": "mode", "모드": "mode", "테마": "mode", "다크모드": "dark mode",
    "notifications": "notifications", "notification": "notifications", "alerts": "notifications",
    "알림": "notifications",
    "email": "email", "e-mail": "email", "mail": "email", "이메일": "email", "메일": "email",
    "ticket": "ticket", "issue": "ticket", "티켓": "ticket", "이슈": "ticket",
    "titled": "titled", "called": "titled", "named": "titled", "제목": "titled",
}
SMALL = frozenset({
    "the", "a", "an", "my", "our", "your", "to", "into", "in", "from", "of", "on", "for", "at", "with", "please",
    "me", "it", "this", "that", "some", "up", "now", "just", "also", "can", "could", "would", "you",
    "will", "i", "we", "need", "want", "like", "kindly", "go", "ahead", "be", "is", "are", "am", "get", "got",
    "let's", "lets", "us", "quickly", "again", "for me", "pls", "plz", "after", "once", "first", "finally", "ok",
    "okay", "you've", "i've", "i'm", "there", "do",
    "좀", "제", "내", "나의", "저의", "우리", "그", "다음", "그다음", "뒤", "후", "해", "해줘", "줘", "주세요",
    "해주세요", "해줄래", "줄래", "부탁해", "부탁해요", "부탁드려요", "부탁합니다", "하기", "해요", "하세요", "요",
    "빨리", "지금", "다시", "한번", "한", "것", "거", "수", "있어", "있나요", "있을까요", "있어요", "있는", "있던",
    "담긴", "들어있는", "인", "이라는", "라는", "이란", "란", "으로", "로", "이제", "먼저", "주실래요", "주시겠어요",
    "줄래요", "줘요", "주시겠습니까", "주십시오", "헤줘", "헤", "해줄래요", "해주실래요",
})
SEPARATORS = frozenset({"and", "or", ",", ";", ":", "plus", "then", "그리고", "하고", "및", "또", "그러고"})
# A bare "on" or "off" at the end of what a goal asks is the act: "dark mode on", "알림 off 해줘".
SWITCHED = {"on": "enable", "off": "disable"}
NEGATIONS = frozenset({"not", "don't", "dont", "never", "without", "no", "말고", "마", "말아", "말아줘", "않", "안",
                       "않게", "않도록", "하지마", "지마"})
# Words that count one thing rather than name it, before it ("add 1 Tea Towel", "a single …") and
# after it ("티 타월 1개", "하나만"); other numbers are the value's own ("March 2024", "iPhone 15").
COUNT_BEFORE = re.compile(r"^(1|one|single|x1|1x|한|하나|1개|한개)$", re.IGNORECASE)
COUNT_AFTER = re.compile(r"^(1개|한개|개|하나|하나만|x1)$", re.IGNORECASE)

HANGUL = re.compile(r"[\uac00-\ud7a3]")
# What Korean writes after a noun (longest first) and after a verb's stem.
PARTICLES = ("이라는", "라는", "에서는", "에서", "으로", "에게", "한테", "까지", "부터", "이랑", "처럼", "보다", "을", "를", "은", "는",
             "에", "로", "의", "도", "만", "랑", "과", "와", "이", "가")
# Particles that end many nouns too ("사과", "아보카도", "고양이"): taken off a word of the lexicon
# only, never off a value, which keeps every syllable the person wrote.
SHORT_PARTICLES = frozenset({"이", "가", "과", "와", "의", "도", "로", "만"})
# A particle that says "and": "티 타월이랑 구리 주전자" names two things.
JOINING = frozenset({"이랑", "랑", "하고"})
# What only a verb ends with: a Korean word that ends so and is no act of the lexicon asks for an
# act goalbot does not know ("비워줘"), which no recipe may be taken for.
VERB_ENDING = re.compile(r"(줘|주세요|줄래|줘요|주실래요|주시겠어요|해|해요|하세요|해라|합시다|할래|하자|해줘|해주세요)$")
ENDING = re.compile(r"^(아|어|여)?(줘|주세요|줄래|줄|주고|주라|줘요|헤|헤줘|허고|주실래요|주시겠어요|기|고|서|면|요|세요|봐|봐줘|"
                    r"해|해줘|해요|해서|해주세요|해줄래|해주고|하고|하기|한|한다음|한뒤|한후|하세요|하자|합시다|"
                    r"해라|하면|된|되게|되도록|시켜|시켜줘|시켜주세요|기를|기)*$")


def korean_stem(token: str) -> tuple[str, str]:
    """The word and what Korean wrote onto it: ("장바구니", "에"), ("담", "아줘"); a word with no
    Hangul, or nothing to take off, comes back whole."""
    if not HANGUL.search(token[-1:]):
        return token, ""
    for key in sorted((k for k in (*ACTS, *THINGS) if HANGUL.search(k) and " " not in k), key=len, reverse=True):
        if token.startswith(key) and len(token) > len(key):
            rest = token[len(key):]
            if key in ACTS and ENDING.match(rest):
                return key, rest
            if key in THINGS and rest in PARTICLES:
                return key, rest
    for particle in PARTICLES:
        if token.endswith(particle) and len(token) > len(particle):
            stem = token[: -len(particle)]
            # "스피커로" is "스피커" + "로", but "도로" is a road: a stem of two syllables at least.
            if particle in SHORT_PARTICLES and not (particle in ("로", "의") and len(stem) >= 2):
                continue
            return stem, particle
    return token, ""


def english_lemmas(word: str) -> list[str]:
    """The word and the forms it may be inflected from: "logged" → "log", "turning" → "turn",
    "notifications" → "notification"; looked up in that order."""
    found = [word]
    for suffix, back in (("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ied", "y")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)] + back
            found += [stem, stem + "e"]
            if len(stem) > 3 and stem[-1] == stem[-2]:  # "logged" → "logg" → "log"
                found.append(stem[:-1])
    return found


def near(word: str, other: str) -> bool:
    """One letter off (a slip, a swap of two neighbours): "trun" and "turn", "downlaod" and
    "download"; only for words long enough that one letter does not make another word."""
    if abs(len(word) - len(other)) > 1 or min(len(word), len(other)) < (3 if HANGUL.search(word) else 4):
        return False
    if len(word) == len(other):
        diffs = [n for n, (a, b) in enumerate(zip(word, other)) if a != b]
        return len(diffs) == 1 or (len(diffs) == 2 and diffs[1] == diffs[0] + 1
                                   and word[diffs[0]] == other[diffs[1]] and word[diffs[1]] == other[diffs[0]])
    short, long_ = sorted((word, other), key=len)
    return any(long_[:n] + long_[n + 1:] == short for n in range(len(long_)))
