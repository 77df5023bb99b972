"""Calibrate `grounding_min` (rule 11): a script, not a test.

    python3 tests/benchmarks/grounding_calibration.py [--code PATH] [--show-refused]

Two sets. On sample-project/, sentences that should pass (hand-written
faithful paraphrases of single journal lines; every sentence of the sample
wiki's pages against all lines of the days in their `source:`; the test
fixtures' bodies) and sentences that should not (a fact from a line the
operation did not cite; a cited fact mixed with an uncited one; pure
inventions). And on text nobody here wrote (`grounding_cases.py`: the sample
chat transcript and public-domain prose), 100+ plain paraphrases and 100+
alterations of one fact each (issue 26). It prints each group's distribution,
how many rule 11 refuses, and the thresholds that separate them.

`--code PATH` scores with the gitgarden package of another checkout (a
worktree of an older commit), to compare before and after a change to rule 11
on the same sentences.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_ARGS = argparse.ArgumentParser(description="Calibrate grounding_min (rule 11).")
_ARGS.add_argument("--code", type=Path, default=ROOT, help="the checkout whose gitgarden package scores (default: this one)")
_ARGS.add_argument("--show-refused", action="store_true", help="list every refused paraphrase and landed alteration")
OPTIONS = _ARGS.parse_args()
sys.path.insert(0, str(OPTIONS.code.resolve()))
sys.path.insert(1, str(ROOT))

from gitgarden.guard import grounding  # noqa: E402
from gitgarden.wiki import pages as wiki  # noqa: E402
from tests.benchmarks import grounding_cases  # noqa: E402

SAMPLE = ROOT / "sample-project"

# (cited line ids, page title, sentence): what a careful model writes from those lines.
FAITHFUL = [
    (["2026-11-23#2"], "Marta Okafor", "Marta Okafor, our landlord, owns the whole building and lives in the flat above the shop."),
    (["2026-11-23#3"], "Lease at Lindenstrasse 14", "Marta insists on a lease of at least five years; she doesn't want a new tenant every two years."),
    (["2026-11-23#4"], "Lease at Lindenstrasse 14", "The shop's rent is 2400 EUR per month, heating not included."),
    (["2026-11-23#5"], "Lease at Lindenstrasse 14", "The deposit is three months of rent: 7,200 euros."),
    (["2026-11-23#6"], "Dana Reyes", "Dana Reyes, my business partner, puts in 40 percent of the start-up money and will run the front of house."),
    (["2026-11-23#7"], "Dana Reyes", "We are aiming to open Crumb & Co on Saturday, 16 January 2027."),
    (["2026-11-24#2"], "Kessler Mill", "It is a family flour mill in Altdorf, roughly 40 minutes from the shop by van."),
    (["2026-11-24#3"], "Kessler Mill", "Type 550 wheat flour costs 0.78 EUR per kilo, sold in 25 kg sacks."),
    (["2026-11-24#5"], "Kessler Mill", "Deliveries come on Tuesdays and Fridays; the minimum order is 300 kg and delivery is free above 500 kg."),
    (["2026-11-24#7"], "Kessler Mill", "Each delivery is invoiced, with payment 14 days net."),
    (["2026-11-24#10"], "Kessler Mill", "Jonas Kessler, the owner's son, is our contact at the mill."),
    (["2026-11-25#1"], "Helen Brandt", "Helen Brandt of Brandt & Sohn is our accountant; her fee is 180 EUR a month for the bookkeeping and the VAT returns."),
    (["2026-11-25#2"], "Helen Brandt", "According to Helen, the 2,400 EUR rent works if we turn over at least 14,000 EUR a month."),
    (["2026-11-25#5"], "Lease at Lindenstrasse 14", "Marta agreed the 7,200 EUR deposit can be paid in two halves: 3,600 EUR at signing and 3,600 EUR on January 1st."),
    (["2026-11-25#10"], "Deck oven", "The used MIWE condo costs 11,500 EUR, while Tomasz says a new one would be over 30,000 EUR."),
    (["2026-11-26#1"], "Deck oven", "The oven needs a 400 V three-phase connection, but the shop only has 230 V."),
    (["2026-11-26#2"], "Deck oven", "An electrician quoted 1850 EUR for the three-phase line, and Marta agreed to pay half of it."),
    (["2026-11-26#8"], "Suppliers", "Hofmann delivers on Monday and Thursday before 7 am, with a minimum order of 60 EUR."),
    (["2026-11-27#3"], "Suppliers", "PapierWerk cake boxes cost 0.38 EUR each, and printing our logo costs a one-time 240 EUR for the plate."),
    (["2026-11-27#8"], "Suppliers", "If we buy at least eight kilos a month, Roesterei Vogel lends us a two-group espresso machine for free."),
    (["2026-11-28#2"], "Kessler Mill", "The first delivery is confirmed for Tuesday 15 December: 600 kg of type 550 wheat and 150 kg of rye."),
    (["2026-11-28#3"], "Kessler Mill", "Jonas Kessler offered 5% off all flour with a 12-month supply contract."),
    # Short sentences, where one word a model chose itself weighs most.
    (["2026-11-24#2"], "Kessler Mill", "The mill is family-run."),
    (["2026-11-23#2"], "Marta Okafor", "Marta lives above the shop."),
    (["2026-11-26#9"], "Suppliers", "Hofmann invoices monthly."),
    (["2026-11-27#11"], "Suppliers", "Blitzblank gets its own shop key."),
    (["2026-11-25#12"], "Suppliers", "Grossmarkt Sued doesn't deliver; we collect sugar and salt with the van."),
    (["2026-11-26#10"], "Suppliers", "Quark from Hofmann is 3.10 EUR a kilo; we need it for the cheesecake."),
    (["2026-11-27#4"], "Suppliers", "They need the logo as a vector file for the plate."),
    (["2026-11-25#3"], "Helen Brandt", "Helen advises starting as a GbR and moving to a GmbH after year one."),
]

# (cited ids, title, sentence): a fact from another line than the one cited.
UNCITED_FACT = [
    (["2026-11-23#2"], "Marta Okafor", "The rent is 2,400 EUR a month, heating not included."),
    (["2026-11-24#5"], "Kessler Mill", "Kessler Mill invoices each delivery, payment 14 days net."),
    (["2026-11-24#3"], "Kessler Mill", "Kessler Mill has no organic flour; all their grain comes from farms within 50 km."),
    (["2026-11-25#9"], "Deck oven", "We paid Tomasz a 2,000 EUR down payment so the bakery holds the oven for us."),
    (["2026-11-26#5"], "Suppliers", "Hofmann bills once a month, with payment within 30 days."),
    (["2026-11-27#2"], "Suppliers", "PapierWerk ships within 5 working days, free shipping above 250 EUR."),
    (["2026-11-27#7"], "Suppliers", "Roesterei Vogel delivers coffee on Wednesdays by cargo bike."),
    (["2026-11-23#6"], "Dana Reyes", "Dana wants to visit Kessler Mill before we sign anything with them."),
    (["2026-11-25#1"], "Helen Brandt", "Helen wants us to start as a GbR and think about a GmbH after the first year."),
    (["2026-11-23#3"], "Lease at Lindenstrasse 14", "Marta now says a 3-year lease would be fine after all."),
    (["2026-11-27#10"], "Suppliers", "Blitzblank needs its own key to the shop."),
    (["2026-11-26#3"], "Deck oven", "Tomasz wants the three-phase line finished before 14 December."),
]

# (cited ids, title, sentence): a cited fact and an uncited one in one sentence.
MIXED = [
    (["2026-11-23#2"], "Marta Okafor", "Marta Okafor is the landlord, and the rent is 2,400 EUR a month."),
    (["2026-11-23#2", "2026-11-23#3"], "Marta Okafor", "Marta Okafor owns the building, wants a 5-year lease and says the coffee machine is broken."),
    (["2026-11-24#3"], "Kessler Mill", "Type 550 wheat flour is 0.78 EUR a kilo, and Kessler Mill has no organic flour."),
    (["2026-11-26#5"], "Suppliers", "Hofmann sells butter at 8.90 EUR a kilo and bills once a month."),
    (["2026-11-25#9"], "Deck oven", "Tomasz found a used MIWE condo deck oven for 11,500 EUR, and installation costs 650 EUR."),
    (["2026-11-27#8"], "Suppliers", "Roesterei Vogel lends us an espresso machine and delivers on Wednesdays by cargo bike."),
    (["2026-11-23#7"], "Dana Reyes", "We open Crumb & Co on Saturday 16 January 2027; call mum on Sunday."),
    (["2026-11-24#10"], "Kessler Mill", "Jonas Kessler is our contact and offered 5% off for a 12-month supply contract."),
    (["2026-11-23#4"], "Lease at Lindenstrasse 14", "Rent is 2,400 EUR a month, and we got a parking fine near the shop."),
    (["2026-11-27#2"], "Suppliers", "PapierWerk bread bags are 0.045 EUR each and cake boxes are 0.38 EUR."),
    (["2026-11-25#6"], "Lease at Lindenstrasse 14", "We sign the lease with Marta on 1 December and pay the 7,200 EUR deposit in two halves."),
    (["2026-11-26#8"], "Suppliers", "Hofmann delivers on Mondays and Thursdays; their cream is 4.20 EUR a litre."),
]

# (cited ids, title, sentence): nothing any line says.
INVENTED = [
    (["2026-11-23#2"], "Marta Okafor", "The bakery will sell sourdough croissants every weekend."),
    (["2026-11-24#3"], "Kessler Mill", "Organic rye costs 2.10 EUR a kilo from the co-op."),
    (["2026-11-25#1"], "Helen Brandt", "Our insurance broker recommended liability cover of 3 million."),
    (["2026-11-26#5"], "Suppliers", "Dana prefers oat milk for the cappuccinos."),
    (["2026-11-27#7"], "Suppliers", "The health inspector visits in February."),
    (["2026-11-28#5"], "Suppliers", "The van was fined for parking outside the town hall."),
    (["2026-11-23#3"], "Lease at Lindenstrasse 14", "A second shop in Mainz could open in 2028."),
    (["2026-11-24#5"], "Kessler Mill", "The bread slicer arrives next week from Italy."),
    (["2026-11-25#8"], "Deck oven", "Staff wages will be 14 EUR an hour."),
    (["2026-11-27#10"], "Suppliers", "The website launches with online preorders."),
]

# The bodies the tests' scripted models write, with the lines they cite.
FIXTURES = [
    (["Acme signed the pilot contract"], "Acme", "Acme signed the pilot contract."),
    (["Acme wants export before January"], "Pricing", "Acme wants export before January."),
    (["Acme is the pilot customer"], "Acme", "Acme is the pilot customer."),
    (["Marta now says a 3-year lease would be fine after all"], "Lease", "Marta now says a 3-year lease would be fine."),
    (["Landlord is Marta Okafor; she wants a 5-year lease minimum"], "Marta Okafor", "Marta Okafor, the landlord, wants a lease of at least 5 years."),
]


def cases_not_written_here() -> None:
    """Issue 26: plain paraphrases of lines nobody here wrote must land; altered facts must not."""
    lines = {i: text for i, (_day, text) in grounding_cases.sources().items()}
    t = 0.6

    def worst(ids: list[str], title: str, sentence: str) -> tuple[float, str, tuple[str, ...], tuple[str, ...]]:
        # A case is refused when any of its sentences is: the one refused (or lowest) speaks for it.
        scored = score_cases([(ids, title, sentence)], lines)
        return min(scored, key=lambda x: (not x[3], x[0]))

    para = [(ids, worst(ids, title, s)) for ids, title, s in grounding_cases.PARAPHRASES]
    alt = [(kind, worst(ids, title, s)) for ids, title, s, kind in grounding_cases.ALTERATIONS]
    para_refused = [(ids, x) for ids, x in para if x[0] < t or x[3]]
    alt_landed = [(kind, x) for kind, x in alt if not (x[0] < t or x[3])]
    print(f"\ntext not written here ({len(grounding_cases.sources())} lines: the sample chat transcript, Dickens, Conan Doyle), at {t}:")
    print(f"  plain paraphrases refused:   {len(para_refused):3}/{len(para)}  (by score {sum(x[0] < t for _, x in para)}, "
          f"by a number or name {sum(bool(x[3]) for _, x in para)})")
    print(f"  alterations landed:          {len(alt_landed):3}/{len(alt)}")
    by_kind = collections.Counter(kind for kind, _ in alt)
    landed_kind = collections.Counter(kind for kind, _ in alt_landed)
    print("  alterations by kind (landed/all): " + ", ".join(f"{k} {landed_kind[k]}/{n}" for k, n in sorted(by_kind.items())))
    scores = sorted(x[0] for _, x in para)
    print(f"  paraphrase scores: min {scores[0]:.2f}  p10 {statistics.quantiles(scores, n=10)[0]:.2f}  median {statistics.median(scores):.2f}")
    if OPTIONS.show_refused:
        for ids, (score, sentence, missing, unfounded) in para_refused:
            print(f"    refused {score:.2f} {sentence!r} ({', '.join(ids)}) missing: {', '.join(missing)}" + (f" | {', '.join(unfounded)}" if unfounded else ""))
        for kind, (score, sentence, _missing, _unfounded) in alt_landed:
            print(f"    LANDS   {score:.2f} {sentence!r} ({kind})")


def journal_lines() -> dict[str, str]:
    out = {}
    for path in sorted((SAMPLE / "raw/journal").glob("*.md")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            out[f"{path.stem}#{n}"] = line
    return out


Scored = list[tuple[float, str, tuple[str, ...], tuple[str, ...]]]  # score, sentence, missing words, missing numbers/names


def score_cases(cases: list[tuple[list[str], str, str]], lines: dict[str, str]) -> Scored:
    out = []
    for ids, title, sentence in cases:
        cited = [lines.get(i, i) for i in ids]  # fixtures cite their line text directly
        days = [i.split("#")[0] for i in ids if i in lines]
        for s in grounding.score_text(sentence, cited, title, days):
            out.append((s.score, s.sentence, s.missing, s.unfounded))
    return out


def page_sentences(lines: dict[str, str]) -> Scored:
    """Every sentence of the sample wiki's pages against all lines of their source days."""
    out = []
    for path in sorted((SAMPLE / "wiki").glob("*.md")):
        if path.name == "index.md":
            continue
        text = path.read_text()
        meta = wiki.read_meta(text)
        days = set(wiki.source_days(meta))
        cited = [t for i, t in lines.items() if i.split("#")[0] in days]
        body = wiki.split_frontmatter(text)[1]
        for s in grounding.score_text(body, cited, str(meta.get("title", "")), sorted(days)):
            out.append((s.score, f"{path.stem}: {s.sentence}", s.missing, s.unfounded))
    return out


def refused(scored: Scored, t: float) -> int:
    """How many rule 11 refuses at threshold `t`: a score under it, or a number or name not found."""
    return sum(score < t or bool(unfounded) for score, _, _, unfounded in scored)


def describe(name: str, scored: Scored, show: str) -> None:
    scores = sorted(s for s, _, _, _ in scored)
    q = statistics.quantiles(scores, n=10) if len(scores) > 1 else scores * 9
    print(
        f"{name:<34} n={len(scores):3}  min {scores[0]:.2f}  p10 {q[0]:.2f}  median {statistics.median(scores):.2f}"
        f"  p90 {q[-1]:.2f}  max {scores[-1]:.2f}  | refused at 0.6: {refused(scored, 0.6)}/{len(scored)}"
        f" (naming a number or name not found: {sum(bool(u) for _, _, _, u in scored)})"
    )
    pick = sorted(scored, key=lambda x: x[0], reverse=(show == "high"))[:3]
    for score, sentence, missing, unfounded in pick:
        print(f"    {score:.2f}  {sentence[:90]!r}  missing: {', '.join(missing)}" + (f"  | numbers/names: {', '.join(unfounded)}" if unfounded else ""))
    landed_or_refused = [x for x in scored if (show == "high") != (x[0] < 0.6 or bool(x[3]))]
    for score, sentence, _missing, unfounded in landed_or_refused:
        verb = "lands" if show == "high" else "refused"
        print(f"    {verb} at 0.6: {score:.2f}  {sentence[:90]!r}" + (f"  | numbers/names: {', '.join(unfounded)}" if unfounded else ""))


def main() -> None:
    lines = journal_lines()
    good = {
        "faithful paraphrases (1 line)": score_cases(FAITHFUL, lines),
        "sample pages vs their source days": page_sentences(lines),
        "test fixtures": score_cases(FIXTURES, lines),
    }
    bad = {
        "fact from an uncited line": score_cases(UNCITED_FACT, lines),
        "cited fact + uncited fact": score_cases(MIXED, lines),
        "pure inventions": score_cases(INVENTED, lines),
    }
    print("should pass:")
    for name, scored in good.items():
        describe(name, scored, "low")
    print("should be refused:")
    for name, scored in bad.items():
        describe(name, scored, "high")

    hand_good = [s for s, _, _, _ in good["faithful paraphrases (1 line)"] + good["test fixtures"]]
    pages = [s for s, _, _, _ in good["sample pages vs their source days"]]
    bad_all = [s for scored in bad.values() for s, _, _, _ in scored]
    bad_whole = [s for name in ("fact from an uncited line", "pure inventions") for s, _, _, _ in bad[name]]
    print("\nthresholds that separate (lowest faithful must be >= t, highest unfaithful < t):")
    print(f"  paraphrases vs uncited facts and inventions: ({max(bad_whole):.2f}, {min(hand_good):.2f}]")
    print(f"  paraphrases vs all unfaithful, mixed too:    ({max(bad_all):.2f}, {min(hand_good):.2f}]" + ("  (overlap)" if max(bad_all) >= min(hand_good) else ""))
    print(f"  pages' sentences (min {min(pages):.2f}) vs all unfaithful: overlap" if min(pages) <= max(bad_all) else "")
    print("\nby score alone (numbers/names rule aside):")
    print("threshold  faithful refused  pages refused  unfaithful landed")
    for t in (0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8):
        print(
            f"  {t:.2f}      {sum(s < t for s in hand_good):3}/{len(hand_good)}"
            f"          {sum(s < t for s in pages):3}/{len(pages)}"
            f"          {sum(s >= t for s in bad_all):3}/{len(bad_all)}"
        )
    hand_scored = good["faithful paraphrases (1 line)"] + good["test fixtures"]
    page_scored = good["sample pages vs their source days"]
    bad_scored = [x for scored in bad.values() for x in scored]
    print("\nas rule 11 decides (score under the threshold, or a number or name not found):")
    print("threshold  faithful refused  pages refused  unfaithful landed")
    for t in (0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7):
        print(
            f"  {t:.2f}      {refused(hand_scored, t):3}/{len(hand_scored)}"
            f"          {refused(page_scored, t):3}/{len(page_scored)}"
            f"          {len(bad_scored) - refused(bad_scored, t):3}/{len(bad_scored)}"
        )
    cases_not_written_here()
    print("\npages' sentences under 0.70 (all lines of their source days cited):")
    for score, sentence, missing, _ in sorted(good["sample pages vs their source days"]):
        if score < 0.7:
            print(f"    {score:.2f}  {sentence!r}  missing: {', '.join(missing)}")


if __name__ == "__main__":
    main()
