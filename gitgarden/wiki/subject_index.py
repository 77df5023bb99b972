"""One page per subject across spellings and passes: a mention ("Tomasz", "the electrician",
"Kestrel Bay Food Festival", "INV-2207") resolved to the page that answers to it — by title, alias,
a person's first or last name, a role given before, a plural — or to none when two pages answer
equally (code never guesses). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from gitgarden.wiki.subjects import Mention, fold, is_full_name
from gitgarden.wiki.wordlists import HONORIFICS

__all__ = ["CHOICE", "HONORIFICS", "SubjectIndex", "name_parts"]

# How small mode titles the choice of someone ("Hartwell decision"): never the page a name said short finds.
CHOICE = " decision"


def name_parts(label: str) -> tuple[str, str]:
    """A full name's first and last words, a title before it passed over: "Captain Sue Pengelly" is
    Sue and Pengelly, "Dr Helen Achebe" Helen and Achebe, "Mrs Okoro" Okoro and Okoro."""
    words = re.findall(r"[^\W\d_]+", label)
    while len(words) > 1 and fold(words[0]) in HONORIFICS:
        words = words[1:]  # "Mrs Okoro": her last name only
    return (words[0], words[-1]) if words else ("", "")


def _initials(label: str) -> set[str]:
    """The initials a name of three to five capitalised words may be said by ("SFE" for "Student Finance
    England", small words such as "of" passed over), or two joined by "&" ("H&R" for "Hollins & Reade");
    never two words' ("GP", "HR" and "MA" are said of other things)."""
    said = [w for w in label.split() if fold(w) not in HONORIFICS]
    words = [w for w in said if w != "&" and w[:1].isupper()]
    if len(words) != len([w for w in said if w not in ("&", "of", "and", "the", "for")]):
        return set()
    letters = [w[0].upper() for w in words]
    if len(words) == 2 and " & " in label:
        return {"&".join(letters)}
    return {"".join(letters)} if 3 <= len(words) <= 5 else set()


@dataclass
class SubjectIndex:
    """Pages by the ways a line can name them, so a mention resolves to one page across spellings.

    `add(page, title, aliases)` registers a page; `resolve(mention)` answers its page or None, and
    None too when two pages answer equally (a first name two people share): code never guesses.
    """

    exact: dict[str, set[str]] = field(default_factory=dict)  # folded title/alias -> pages
    parts: dict[str, set[str]] = field(default_factory=dict)  # folded first or last name of a person-like title -> pages
    roles: dict[str, set[str]] = field(default_factory=dict)  # folded role ("electrician") -> pages
    initials: dict[str, set[str]] = field(default_factory=dict)  # "SFE" of "Student Finance England", "H&R" of "Hollins & Reade" -> pages
    firsts: dict[str, set[str]] = field(default_factory=dict)  # folded first name of a two- or three-word name -> pages

    def add(self, page: str, title: str, aliases: Iterable[str] = ()) -> None:
        for label in (title, page.rsplit("/", 1)[-1].replace("-", " "), *aliases):
            key = fold(label)
            if not key:
                continue
            if key.startswith(("the ", "our ", "my ")):
                self.add_role(page, key.split(" ", 1)[1])
            self.exact.setdefault(key, set()).add(page)
            self.exact.setdefault(_plural_free(key), set()).add(page)
            owner = re.match(r"(.+?)['’]s\s+\S", key)
            if owner and is_full_name(label):  # "St Brigid's" (or "St Brigid") for "St Brigid's Hospice"
                for said in (owner.group(1), f"{owner.group(1)}'s"):
                    self.exact.setdefault(said, set()).add(page)
            if is_full_name(label):
                for part in name_parts(label):
                    self.parts.setdefault(fold(part), set()).add(page)
                for said in _initials(label):
                    self.initials.setdefault(said, set()).add(page)
                if len(label.split()) <= 3:
                    self.firsts.setdefault(fold(name_parts(label)[0]), set()).add(page)

    def add_role(self, page: str, role: str) -> None:
        key = fold(role)
        self.roles.setdefault(key, set()).add(page)
        if " " in key:  # "our election agent", later "our agent"
            self.roles.setdefault(key.split()[-1], set()).add(page)

    def resolve(self, mention: Mention | str) -> str | None:
        text = mention.text if isinstance(mention, Mention) else mention
        kind = mention.kind if isinstance(mention, Mention) else "name"
        key = fold(text)
        for table, k in ((self.exact, key), (self.exact, _plural_free(key))):
            found = table.get(k)
            if found:
                return next(iter(found)) if len(found) == 1 else None
        if kind == "role":
            # "the warden" for "the churchwarden": a role said without the word before it
            found = self.roles.get(key) or self.roles.get(key.split()[-1]) or {p for r, ps in self.roles.items() if " " not in r and r.endswith(key) and len(r) > len(key) + 2 for p in ps}
            return next(iter(found)) if found and len(found) == 1 else None
        if kind == "name" and not key.endswith(CHOICE):  # "Clearview decision" is no spelling of "Clearview"
            words = key.split()
            if len(words) == 1:
                found = self.parts.get(key) or self.initials.get(text) or self.said_short(key)  # "SFE", said in capitals as its key is
                return next(iter(found)) if found and len(found) == 1 else None
            if len(words) == 2 and words[0] in HONORIFICS:  # "Mrs Okoro" for "Mrs Janet Okoro"
                found = self.parts.get(words[1])
                return next(iter(found)) if found and len(found) == 1 else None
            # "Tomasz Wójcik" when the page is "Tomasz": its first name stands alone as a title.
            found = self.exact.get(words[0])
            if found and len(found) == 1:
                return next(iter(found))
            # "Churches Trust" when the page is "Wessex Historic Churches Trust": the name said shorter.
            found = {page for label, pages in self.exact.items() if label.endswith(" " + key) and is_full_name(label.title()) for page in pages}
            # … and "Harbour Road" when it is "Harbour Road Garage": the name's head, said alone.
            found = found or {page for label, pages in self.exact.items() if label.startswith(key + " ") and is_full_name(label.title()) for page in pages}
            if len(found) == 1:
                return next(iter(found))
        return None

    def said_short(self, key: str) -> set[str]:
        """The pages whose first name the one word `key` shortens ("Vern" of "Vernon Tully", "Jen" of
        "Jenny Okafor"): three letters or more, and no more than three left off."""
        if len(key) < 3:
            return set()
        return {page for first, pages in self.firsts.items() if first.startswith(key) and len(first) - len(key) <= 3 for page in pages}

    def starting(self, topic: str, ends: Collection[str] = ()) -> str | None:
        """The one page whose title or alias begins with the one-word `topic` ("Tech" for "Tech
        rehearsal") — and ends with one of `ends`, when given — else None: a topic said short goes
        where it was said in full."""
        key = fold(topic)
        if not key or " " in key:
            return None
        found = {
            page
            for label, pages in self.exact.items()
            if label.startswith(key + " ") and (not ends or label.split()[-1] in ends) and not label.endswith(CHOICE)
            for page in pages  # "Westway decision" is the choice of Westway: "Westway have booked …" is theirs
        }
        return next(iter(found)) if len(found) == 1 else None

    def ending(self, topic: str) -> str | None:
        """The one page whose title or alias of two words ends with the one-word `topic` ("Target"
        for "Fundraising target"), else None: a thing said short goes where it was said in full."""
        key = _plural_free(fold(topic))
        if not key or " " in key:
            return None
        found = {
            page
            for label, pages in self.exact.items()
            if len(label.split()) == 2 and label.endswith(" " + key) and not label.startswith(("the ", "our ", "my "))  # a role: `roles`
            for page in pages
        }
        return next(iter(found)) if len(found) == 1 else None

    def owning(self, topic: str, text: str) -> str | None:
        """The one page whose title of two words `text` says before the last word of the two-word
        `topic` ("Card limit" of "the fuel card limit" where a page is "Fuel card"), else None: a
        thing's part or figure goes on the thing's page."""
        key = fold(topic).split()
        if len(key) != 2:
            return None
        said = fold(text)
        found = {
            page
            for label, pages in self.exact.items()
            if len(label.split()) == 2 and label.split()[1] == key[0] and f"{label} {key[1]}" in said and not label.startswith(("the ", "our ", "my "))
            for page in pages
        }
        return next(iter(found)) if len(found) == 1 else None

    @classmethod
    def of(cls, titles: Mapping[str, tuple[str, list[str]]]) -> SubjectIndex:
        """An index of every page, from `tidy.page_titles`: name -> (title, aliases)."""
        index = cls()
        for name, (title, aliases) in titles.items():
            index.add(name, title, aliases)
        return index


def _plural_free(key: str) -> str:
    words = key.split()
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words)
