"""What chatter a journal line looks like — weather, a meal, sleep, family, an appointment, a
feeling, an errand, free time, a pet, housework — read from its words, so a skip can say why ("chatter: weather") and
small mode can weigh the model's score against it. Pure.
"""

from __future__ import annotations

import re

from gitgarden.wiki.subjects import content_words, fold, sentence_starts

__all__ = ["chatter_kind", "domain_words"]

_CHATTER: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (why, re.compile(r"\b(?:" + words + r")\b(?!-\w)", re.I))  # not "walk-in shower", "sun-room"
    for why, words in (
        ("weather", r"rain(?:ed|ing|y)?|sun(?:ny)?|snow(?:ed|ing)?|frost|wind(?:y)?|storm(?!\s+(?:straps?|doors?|drains?|porch|windows?|cover|damage|kit))|fog(?:gy)?|(?<!got a )(?<!has a )(?<!had a )(?<!caught a )(?<!with a )cold|freezing|heatwave|hot day|grey(?=\s*(?:[,.;!]|$|and\b|all\b|day\b|sk(?:y|ies)\b|morning\b|afternoon\b|outside\b|again\b))(?<!in grey)(?<!slate grey)(?<!light grey)(?<!dark grey)(?<!dove grey)|drizzle|sleet|hail|hailstones|(?<!if the )(?<!unless the )(?<!depending on the )weather(?!\s+(?:permitting|holds|allowing))|ice cream|sweltering|scorching|muggy|humid|blustery|chilly|(?:hottest|coldest|warmest|wettest) day|\d+ degrees|(?:before|in|out of) the heat"),
        ("an appointment", r"dentist(?:['’]s)?|vet(?:['’]?s)?|doctor['’]s|gp|physio|optician(?:['’]?s)?|hairdresser(?:['’]?s)?|barber(?:['’]?s)?|haircut|check-?up|filling|flu jab|blood test|eye test|eye exam"),
        ("how I feel", r"low today|happy(?!\s+(?:to|with|for\s+\w+\s+to)\b)|sad|stressed|anxious|aching|headache|sick|ill|cold coming|(?:got|has|had|caught|with) a (?:cold|bug)|mood|fed up|bored|nerves|nervous|knackered|shattered|grumpy|miserable|flat all day|hay fever|chickenpox|measles|norovirus|sickness bug|streaming|sneez\w*|cough\w*"),
        ("a meal", r"coffee|tea|lunch|bacon rolls?|sausage rolls?|(?:I[’']ve|I[’']d|I had|I) eaten|dinner|breakfast|brunch|pizza|takeaway|beer|wine|porridge|toast|pasta|curry|roast|chicken|cake|falafel|shepherd['’]s pie|pie|sandwich(?:es)?|cereal|carbonara|chilli(?! seeds?| plants?)|crumble|flat white|latte|cappuccino|risotto|omelette|(?:proper|decent|hot|first) meal|soup|lasagne|noodles|fish and chips|fish fingers|supper|pint|halloumi|toastie|espresso|banana bread|crisps|scones?|leftovers"),
        ("sleep and tiredness", r"lie-in|lay-in|slept|sleep|asleep|dozed(?: off)?|nodded off|nap|tired|exhausted|wiped out|bed by|early night|insomnia"),
        ("family", r"mum|mom|dad|grandma|grandpa|granny|grandad|nan|sister|brother|baby|kids|son|daughter|aunt|auntie|uncle|cousin|nephew|niece|family"),
        ("an errand", r"car['’]?s? (?:mot|service|wash|tax|insurance|rattling|playing up|making a noise)|booked (?:it|the car) (?:into|in at|in with) the garage|car\b[^.,;]{0,25}\bmot\b|(?:dropped|took|put) the car (?:at|in|into|to)|farmers['’]? market|farm shop|my (?:car|bike|phone|laptop)|post office|dry cleaning|dry cleaner['’]?s?|birthday card|groceries|shopping(?!\s+list)|supermarket|kettle|parcel|picked up|bought|repair shop|pharmacy|stamps|library books?|parking (?:ticket|fine)"),
        ("the journey", r"traffic|nose to tail|(?:at|to) a standstill|tailbacks?|gridlock(?:ed)?|(?:sat|stuck) in (?:a |the )?(?:jam|queue)|(?:sat|stuck|crawled|crawling|queued|queueing) on the (?-i:[ABM]\d{1,4})\b|roadworks|ring road|motorway|bypass|stuck behind|commute|school run|drop-off|bin lorry|diversion|(?:an hour|\d+ min(?:ute)?s|forty minutes|twenty minutes|(?:two|three|\d+) hours) to (?:do|go|get)|(?-i:[AM]\d{1,4}) (?:solid|closed|jammed|rammed|crawling)|late train|train was late|bus was late|into work|signal failure|(?:missed|caught) the \d{1,2}[:.]\d\d|rail replacement|train (?:was )?cancelled|cancelled train|stood all the way"),
        ("free time", r"video call|ran \d+\s?(?:k|km|miles?)?|\d+\s?k in \d+|jogg(?:ed|ing)|went for a run|pilates|swam|\d+ lengths|drinks with|watched|box set|walked|walk|gym|yoga|swim(?:ming)?|badminton|tennis|film|movie|quiz|concert|football|match|book club|balcony|netflix|tv|telly|parkrun|jigsaw|crossword|stayed up (?:for|late|to watch)|blackberr(?:y|ies)|foraging"),
        ("a pet", r"booster(?:\s+jabs?)?|jabs|worming|flea treatment|groomer['’]?s?|walkies|(?:(?:the|our|my|next door['’]s) (?:(?-i:ginger|black|white|grey|tabby|old|new|big|little|neighbours['’]|neighbour['’]s)\s+)?(?-i:cat|dog|kitten|puppy)|^(?-i:Cat|Dog|Kitten|Puppy))(?!\s+(?:walkers?|owners?|shows?))"),
        ("housework", r"(?:mowed|mowing|mow) the (?:lawn|grass)|laundry|hoover(?:ed|ing)|ironing|washing[- ]up|(?:re)?potted(?: up)?|swept the (?:patio|kitchen|floor|path|yard|drive|leaves)|(?:cleaned|tidied) the (?:flat|house|kitchen|bathroom|oven|fridge|garage|loft)|washed the car"),
    )
)
# Kinds that can be someone else's: "their engineer is off sick", "with his son", "Arjun's mum",
# "Tom can't do Tuesdays, physio", "Olu says, wine by the glass at £4", "Jen Okafor volunteered …, she
# did the same for the canal walk" are facts about them, not the writer's own day.
_ABOUT_SOMEONE = frozenset({"family", "an appointment", "how I feel", "sleep and tiredness", "a meal", "free time"})
_THEIRS = re.compile(
    r"\b(?:his|her|their|whose)\b|\b(?!(?:it|that|there|what|here|let|he|she|who)['’]s\b)[^\W\d_]+['’]s\b", re.I
)
_HE_SHE = re.compile(r"\b(?:he|she|they)\b", re.I)
_NAMED_DEED = re.compile(r"\b[A-Z][^\W\d_]+\s+[A-Z][^\W\d_]+(?:,\s+(?:the|our|my|a|an)\s[^,]{1,60},)?\s+$")
_ORGANISED = re.compile(
    r"\s+(?:night|evening|afternoon|morning|day)\s+(?:is\s+|was\s+|has\s+been\s+|now\s+)?"
    r"(?:booked|moved|set|planned|arranged|confirmed|cancelled|postponed|pushed|pencilled)\b",
    re.I,
)
_WHEN = re.compile(r"(?:last|next|this|every|on|mon|tues|wednes|thurs|fri|satur|sun)(?:day)?\b", re.I)  # "Last Sunday roast"
_MINE = re.compile(r"\b(?:i|my|me|we|our|us)\b", re.I)
_SOMEONE_DOES = re.compile(
    r"\b[A-Z][^\W\d_]+(?:\s+[A-Z][^\W\d_]+)?(?:,\s+(?:(?:the|our|my|a|an)\s|[A-Z][^\W\d_]*['’]s\s)[^,]{1,60},)?\s+"  # "Yiannis Papadakis, the villa owner, confirmed", "Dr Helen Marsh, Mum's GP, has added"
    r"(?:(?:now|also|still|just|actually|only)\s+)?(?:is|was|has|had|can['’]?t|cannot|won['’]t|will|says|said|isn['’]t|wasn['’]t|[a-z]{3,}ed|[a-z]{2,}[^s\W]s)\b"
)


def chatter_kind(text: str, domain: frozenset[str] = frozenset()) -> str:
    """What kind of chatter a line looks like ("weather", "a meal", …), or "" when code sees none.
    A word of a name does not count ("Calacatta Grey", "Green Bean"): only one written in lower
    case, or the first word of a sentence — but "Mum" and "Dad" are family however they are written.
    Family, health and feelings count only as the writer's own, not someone else's; a word of the
    project's own `domain` (`domain_words`: a choir's concert, a bakery's cake) not at all."""
    starts = sentence_starts(text)
    for why, pattern in _CHATTER:
        for m in pattern.finditer(text):
            if why in _ABOUT_SOMEONE and _someone_elses(text, m.start()):
                continue
            if why == "family" and re.match(r"\s+[A-Z][^\W\d_]+\s+[A-Z]", text[m.end() :]):
                continue  # "Aunt Moira Fitzgerald is keeping the kitty": her title, the line is about her
            if why == "family" and re.search(r"[A-Z][^\W\d_]+(?:\s+[A-Z][^\W\d_]+)+,\s+(?:my|our)\s+$", text[: m.start()]):
                continue  # "Fiona Keane, my cousin in Limerick, is reckoning on 46": who she is, the line is hers
            if why == "family" and (re.search(r"\d\s*(?:(?:including|plus|with)\s+(?:the\s+)?)?$", text[: m.start()]) or re.match(r"\s+(?:under|over|aged)\s+\d", text[m.end() :])):
                continue  # "38 adults and 11 kids", "kids under 5", "at 42 including the kids": people counted, not the writer's family
            if why == "a meal" and re.search(r"\bover\s+(?:an?\s+)?(?:(?:cup|pot|mug|glass)\s+of\s+|quick\s+)?$", text[: m.start()], re.I):
                continue  # "Showed Derek the plan over a cup of tea": where it was said, not what the line is about
            if _ORGANISED.match(text, m.end()):
                continue  # "Quiz night booked at the clubhouse for Friday 24 April": an event being organised
            said = content_words(m.group()) or _short_words(m.group())  # "kids", "dad": short, but still words
            if domain and (said <= domain or (why == "a pet" and domain & _ANIMALS and domain & _ANIMAL_CARE)):
                continue  # "second jabs on Thursday 6 August" when the project is a puppy: the project's
            kind_of = re.search(r"(?<![\w-])([a-z]{4,})\s+$", text[: m.start()])
            if domain and kind_of and (owner := content_words(kind_of.group(1))) and owner <= domain:
                continue  # "the hospital pharmacy" when the project is an operation at the hospital: the project's own
            if not m.group()[:1].isupper() or m.start() in starts or why == "family":  # "Called Mum", "8k in 46"
                return why
    return ""


def _someone_elses(text: str, at: int) -> bool:
    """Whether the chatter word at `at` is about someone other than the writer: a his/her/their or
    someone's possessive earlier in its clause, or a named person earlier in the line doing something
    (the chatter word may be the deed: "Callum Ferris, our landscaper, walked the site")."""
    clause = re.split(r"[,;:.!?()–—]", text[:at])[-1]
    if (_THEIRS.search(clause) or _HE_SHE.search(clause)) and not _MINE.search(clause):
        return True  # "their engineer is off sick", "she's off sick": theirs, not the writer's
    before = re.sub(r",\s+(?:the|our|my|a|an)\s[^,]{1,60},", ",", text[:at])  # "Callum Ferris, our landscaper, walked": his walk
    named = _NAMED_DEED.search(text[:at])
    if named and not _WHEN.match(named.group()):
        return True  # the chatter word is the deed of someone named in full just before it
    return bool(_SOMEONE_DOES.search(text[:at])) and not _MINE.search(before)


# A project about an animal (its care among the project's words, not "for the kids and the dog"):
# its jabs and worming are the project's. Stemmed, as `domain_words` gives them.
_ANIMALS = frozenset({"puppy", "dog", "cat", "kitten", "pet", "horse", "pony", "hen", "chicken"})
_ANIMAL_CARE = frozenset({"vet", "adopt", "adoption", "rescu", "breeder", "kennel", "coop", "flock", "livery"})


# A sentence of AGENTS.md that says what is *not* the project ("some of it is just my day",
# "Anything else (weather, family, dinner) is just life") names no word of the project's own.
_NOT_THE_PROJECT = re.compile(
    r"\b(?:just|only|ordinary|personal|nothing to do|not about|not all of it|odd|bits? of|whatever else|along with|home stuff|life|my day)\b",
    re.I,
)


def domain_words(about: str) -> frozenset[str]:
    """The words a project's own description (AGENTS.md) uses for what it is about: a chatter word
    among them ("the concert" of a choir's tour) is the project's, not the writer's day."""
    sentences = [s for s in re.split(r"(?<=[.!?;])\s+|\n+", about) if not _NOT_THE_PROJECT.search(s)]
    return frozenset(w for s in sentences for w in (*content_words(s), *_short_words(s)) if w)  # not the "s" of "Aldhelm's"


def _short_words(text: str) -> set[str]:
    """The words `content_words` leaves out for their length ("kids", "dad", "tea"), folded, an -s off."""
    return {fold(w).removesuffix("s") for w in re.findall(r"[^\W\d_]+", text) if len(w) <= 4}
