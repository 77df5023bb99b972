"""The word lists code reads journal lines with (`subjects`, `decisions`): which words are never a
name, which start a clause, which end a noun phrase. Data only.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


CALENDAR = _words(
    """monday tuesday wednesday thursday friday saturday sunday week weekend morning afternoon evening night"""
)
# The writer's close family: never a subject's name, and never a page decided about (`FAMILY`).
_KIN_CLOSE = _words("mum mom dad mother father grandma grandpa granny nan sister brother wife husband baby kids")
# Words that are never a subject's name, whatever their case: cue words, pronouns, calendar words,
# currencies and the like. A capitalised word at the start of a sentence is a name only when it is
# not one of these, and the line or the wiki shows it is a name (see `mentions`).
MONTHS = _words("january february march april may june july august september october november december")
NEVER = _words(
    """i me my mine we us our ours you your he him his she her hers they them their theirs it its this that
    these those the a an and or but so if then also just still now today tomorrow yesterday tonight
    decision decided correction update note notes todo fyi re fw ask asked email emailed call called
    phone phoned rang text texted meeting met total totals summary question answer yes no ok okay
    mon tue wed thu fri sat sun
    jan feb mar apr jun jul aug sep sept oct nov dec
    eur usd gbp pln nok sek dkk chf jpy inr ngn vat tbd asap eta pdf am pm"""
) | MONTHS | CALENDAR | _KIN_CLOSE
# Sentence-initial words that start a clause rather than name something: a capitalised one of
# these is never taken for a name (verbs in the past tense and -ing forms are caught by shape).
STARTERS = _words(
    """got get bought sent ordered picked paid raised lowered moved pushed booked signed agreed heard
    made took gave had has have was were is are will would can could should must may might need needs
    wants want went came come saw seen found tried back done did does new old first last next another
    some any every each all both no not one two three four five six seven eight nine ten few many
    much more most less least very really quite bit little lots lot good great bad nice glorious
    spoke talked wrote read left right up down out off over in on at to from with without for by of
    told rang met sold spent lent won lost kept brought thought caught taught ran felt held built chose
    drove rode let put set cut shut
    about after before since until while when where why how what which who whose there here
    waiting open work"""
)
# Words that end a noun phrase (and start none).
FUNCTION = _words(
    """for is are was were be been being to from at on in of by with without into onto over under after
    before since until and or but so that which who says said will would can could should may might
    must has have had does did do not no than then as via per up down out off about if when while
    because though also just still now again rather ahead myself yourself himself herself itself ourselves
    themselves finally already maybe probably eventually even beyond despite except towards toward against between among across through within
    along behind beside near amid upon inside outside beneath underneath wherever whenever whatever however plus"""
)
ADJECTIVES = _words(
    """whole new old final first last next other same big small little full main own
    draft wrong right extra general overgrown smaller bigger larger cheaper shorter longer total"""
)
PLACE_NOUNS = _words(
    """hall church chapel school college hospital road street lane park wood court house centre center
    square green gardens market yard wharf boatyard cathedral abbey farm mill marina quay studio studios
    garage inn arms cafe café surgery butchers bakery bakers barbers salon stores store nursery kitchen
    jewellers jeweller opticians chemist chemists florist florists newsagents ironmongers deli hospice
    hardware pharmacy bookshop tearooms dairy"""
)
BARE_VERBS = _words("set put cut let hit shut quit")  # past forms without -ed, after a noun
# Numbers in words, in order ("one" is 1), and the tens: a count a line may spell out ("ten weeks")
NUMBERS: tuple[str, ...] = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
NUMBERS += ("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
COUNTS = frozenset(NUMBERS) | frozenset(TENS) | {"hundred", "dozen"}  # "one interval": the interval
# Verbs in the present that end a noun phrase after its first word: "the piano comes with us",
# "Maya starts at …", "the lorry loads on the 2nd" (their -s is no plural).
PARTICIPLES = _words("broken written taken given chosen driven shown known grown thrown spoken frozen hidden done gone died broke")
VERBS_S = _words(
    """comes goes starts stays moves gets takes makes pays needs wants runs opens closes ends begins
    arrives leaves lands ships works looks seems becomes remains keeps holds costs includes loads
    sits fits happens lives joins quits leads follows asks stands"""
)
# Nouns that look like verbs by their ending.
ING_NOUNS = _words(
    """wedding meeting building funding booking planning heating flooring tiling painting wiring
    plumbing catering lighting housing parking training ceiling opening reopening waiting seating clothing housewarming
    hiring pricing marketing billing shipping testing banking bedding fencing decking roofing
    firing screening filming recording cleaning glazing rendering cladding
    shelving racking staging paving guttering skirting panelling ducting cabling bunting"""
)
ROLES_FOLDED = _words(
    """electrician plumber designer architect contractor builder carpenter joiner painter tiler
    decorator landlord landlady tenant accountant lawyer solicitor notary agent estate broker banker
    photographer caterer florist planner officer treasurer secretary chair chairman chairwoman
    supervisor manager director investor client customer vendor supplier courier mover movers driver
    teacher doctor dentist nurse vet mechanic engineer developer editor translator recruiter
    consultant advisor adviser coordinator technician surveyor inspector registrar celebrant dj band
    baker butcher gardener accompanist conductor organist pianist tuner luthier signwriter shopfitter
    roofer glazier locksmith physio physiotherapist optician vicar tutor instructor examiner chef
    cleaner childminder nanny carer warden caretaker administrator receptionist pharmacist midwife
    counsellor therapist engraver polisher restorer upholsterer landscaper valuer auctioneer stonemason plasterer clerk
    ecologist arborist hygienist assessor scaffolder bricklayer"""
)
KIN = _words("aunt auntie uncle cousin gran granny grandma grandad grandpa nan nana")
DEMONYMS = _words(
    """canadian american mexican brazilian argentinian australian indian pakistani chinese japanese korean
    vietnamese thai filipino russian ukrainian polish czech slovak hungarian romanian bulgarian serbian
    croatian greek turkish italian spanish portuguese french german dutch flemish belgian swiss austrian
    danish swedish norwegian finnish icelandic irish scottish welsh english british cornish european
    african nigerian ghanaian kenyan egyptian moroccan lebanese israeli iranian syrian
    methodist baptist catholic anglican quaker presbyterian unitarian pentecostal lutheran"""
)  # and a church's kind: "the Methodist hall", "the Catholic primary"
# A title before a name: "Captain Sue Pengelly", "Dr Helen Achebe", "Rev. Anthea Moorcroft".
HONORIFICS = _words("captain capt dr doctor mr mrs ms miss mx prof professor rev revd reverend father sister sir dame lady lord cllr councillor")
# Names that go on with "of" and a name: "Diocese of Bramford", "Bank of England", "Friends of Harrow Park".
OF_NAMES = _words("diocese bank university federation friends society institute college museum guild association chamber borough county city duchy isle")
FESTIVALS = _words("easter christmas whitsun halloween diwali hanukkah hogmanay")  # "Easter holidays", "the Christmas fair": when, no one's name
AFTER_PLURAL = _words("pay get take need want keep cover share bring give make have do sign agree say open close wear use play sit stand eat start finish meet live")
COPULA = _words("is was are were goes has")
PLAIN_VERBS = _words("go stay come happen arrive begin")  # not "print run", "house move", "unit cost"
QUANTIFIERS = _words("all every each both some any several most few many")
# Units a measure is given in, after its number ("90cm", "2,310mm", "5,000-litre", "6 feet"): what
# `values` reads as a measure and `phrases` passes over before the thing measured.
MEASURE_UNITS = _words("mm cm m km kg ft kw kwh l ml m2 metre metres meter meters foot feet inch inches litre litres liter liters")
# Words a number names one of ("Level 2", "Grade 5", "team 41", "pitch 3"): a label, no count.
LABELS = _words("level grade year stage phase team table pitch stand room gate plot unit bay platform court row seat track page chapter flat floor lane locker hall block zone module ward act scene round heat")
ENDS_PHRASE = _words("due each apiece ready only")  # "deposits due Friday": the deposits; "entries only": the entries
# Words too vague to title a page alone: "Plan is to leave at 7am", "the pot covers the rest".
VAGUE = _words("plan plans idea ideas thing things stuff rest lot bit way option options news time half halves year pass best cost worth name names list day days week weeks night nights month months card ref whatever whichever anything everything something nothing anyone anybody everyone everybody someone somebody")
FAMILY = _KIN_CLOSE | KIN
# Words never a name's first, that a name may hold inside it: "Curtain Call Costume Hire".
NAME_INNER = _words("call note notes text meeting question answer total summary update phone email ask")
# "a metre further", "a week later": how far or how long, never a thing when a comparison follows
MEASURES = _words("metre metres meter meters foot feet inch inches yard yards mile miles cm mm km second seconds minute minutes hour hours day days week weeks fortnight month months year years degree degrees")
