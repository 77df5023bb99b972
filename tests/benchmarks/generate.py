"""Synthetic gitgarden projects for the benchmarks: deterministic, consistent, fast to make.

    python -m tests.benchmarks.generate PATH --pages 5000 [--lines 1000 --unread 200 --seed 7]

A project holds `pages` pages (hub pages included) with frontmatter
(title, state, source) and `[[links]]` between them, sized like a real wiki
(200–4,000 characters, a few near 5,500), a journal of `lines` read lines
over several days plus `unread` lines captured today and not yet committed
(some of them mention page titles), and a map under 2,000 characters that
reaches every page through hub pages and is full enough that no entry fits:
a pass with nothing new does nothing.

Files are written directly and committed with one `git add -A` and one
commit, so 5,000 pages take a few seconds. The first pages' titles and the
journal do not depend on `pages`: the same unread lines can be compared at
50, 500 and 5,000 pages.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta
from pathlib import Path

from gitgarden.project import init_layout
from gitgarden.wiki import journal
from gitgarden.wiki import pages as wiki
from gitgarden.wiki.layout import Layout
from gitgarden.wiki.names import slugify

__all__ = ["Generated", "generate", "cached", "restore", "TODAY", "GIT_IDENTITY", "MAP_TARGET", "GEN_VERSION"]

TODAY = date(2026, 11, 30)
GEN_VERSION = 1  # raise it when `generate` makes other bytes: projects cached by `cached` are made again
DAYS = 30  # journal days before today
HUB_FANOUT = 40  # entries per hub page
MAP_TARGET = 1_995  # characters: no `- [[name]] — Title` line fits under the 2,000 ceiling
STABLE_TITLES = 50  # the journal mentions only these pages, which exist at every size
GIT_IDENTITY = ("-c", "user.name=Bench Person", "-c", "user.email=bench@example.com")

_NOUNS_TEXT = """
acme pricing contract pilot export invoice supplier landlord lease deposit bakery oven flour
mill delivery van route harbour warehouse roof permit inspector budget loan grant bank branch
cafe menu recipe sourdough rye spelt croissant baguette espresso grinder kettle fridge freezer
counter window sign logo website newsletter market stall festival school church library museum
garden orchard farm cooperative union council mayor notary lawyer accountant auditor insurer
broker tenant neighbour architect plumber electrician carpenter painter cleaner courier driver
printer designer photographer journalist blogger podcast radio station railway tram ferry bridge
tunnel river canal lake forest mountain valley village district quarter square street avenue
alley courtyard cellar attic studio workshop office meeting agenda minutes deadline milestone
roadmap backlog release feature bug ticket sprint review retro hiring intern mentor training
payroll pension holiday rota shift schedule calendar booking catering wedding birthday
anniversary launch opening closing audit tax vat refund quote estimate order shipment pallet
crate sack kilo price margin revenue forecast cashflow ledger receipt voucher loyalty card
terminal register scale thermometer hygiene allergen label packaging compost recycling energy
solar heating boiler ventilation lighting furniture chair table shelf display basket tray
"""
_NOUNS = _NOUNS_TEXT.split()
_NAMES_TEXT = """
marta dana helen jonas kessler brandt okafor reyes lindqvist moreau tanaka novak silva
fischer weber schmidt meyer wagner becker hoffmann schulz koch richter klein wolf neumann
schwarz zimmermann braun hartmann lange schmitt werner krause lehmann kowalski nowak
petrov ivanova rossi bianchi ferrari garcia lopez martin bernard dubois laurent
"""
_NAMES = _NAMES_TEXT.split()
_VERBS_TEXT = """
signed asked agreed called sent wants needs offered refused confirmed postponed cancelled
booked paid ordered delivered checked fixed broke moved opened closed hired quoted mentioned
"""
_VERBS = _VERBS_TEXT.split()
_FILLER_TEXT = """
the a this that our their new old next last first second small big early late quick careful
before after during about with without for from into over under again still only also maybe
"""
_FILLER = _FILLER_TEXT.split()


@dataclass
class Generated:
    """What `generate` made: where, the base commit, and today's uncommitted day file."""

    root: Path
    pages: int  # pages under wiki/ besides the map, hubs included
    hubs: int
    base: str  # the commit to reset to
    today_path: Path
    today_text: str
    read_lines: int
    unread_lines: int
    titles: list[tuple[str, str]] = field(default_factory=list)  # (name, title) of content pages
    seconds: float = 0.0


def _git(root: Path, *args: str) -> str:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")
    }
    proc = subprocess.run(
        ["git", "-C", str(root), *GIT_IDENTITY, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


def _titles(count: int, rng: random.Random) -> list[str]:
    """`count` unique titles (two or three words); the first ones do not depend on `count`."""
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        k = 2 if rng.random() < 0.7 else 3
        pool = _NAMES if rng.random() < 0.25 else _NOUNS
        words = [rng.choice(pool)] + [rng.choice(_NOUNS) for _ in range(k - 1)]
        title = " ".join(
            w.capitalize() if i == 0 or pool is _NAMES else w for i, w in enumerate(words)
        )
        slug = slugify(title)
        if slug in seen or slug.startswith("hub") or len(set(words)) < k:
            continue
        seen.add(slug)
        out.append(title)
    return out


def _size(rng: random.Random) -> int:
    """A page body's target length: mostly 200–4,000 characters, one in a hundred near 5,500."""
    if rng.random() < 0.01:
        return rng.randint(5_300, 5_600)
    return int(min(4_000, max(200, rng.lognormvariate(6.9, 0.7))))


def _sentence(rng: random.Random, link: str | None) -> str:
    words = [
        rng.choice(_FILLER if rng.random() < 0.4 else _NOUNS) for _ in range(rng.randint(6, 16))
    ]
    if link is not None:
        words.insert(rng.randrange(len(words) + 1), link)
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def _body(i: int, target: int, names: list[str], titles: list[str], seed: int) -> str:
    """Paragraphs (some under `##` headings, some lists) with links, up to about `target` characters."""
    rng = random.Random(f"{seed}-body-{i}")
    paragraphs: list[str] = []
    size = 0
    section = 0
    while True:
        if paragraphs and rng.random() < 0.15:
            section += 1
            heading = f"## {rng.choice(_NOUNS).capitalize()} {section}"
            paragraphs.append(heading)
            size += len(heading) + 2
        sentences = []
        for _ in range(rng.randint(2, 5)):
            link = None
            if rng.random() < 0.3:
                j = rng.randrange(len(names))
                link = f"[[{names[j]}]]" if rng.random() < 0.6 else f"[[{names[j]}|{titles[j]}]]"
            elif rng.random() < 0.03:
                link = f"`{rng.choice(_NOUNS)}()`"
            sentences.append(_sentence(rng, link))
        para = "\n".join(f"- {s}" for s in sentences) if rng.random() < 0.1 else " ".join(sentences)
        if size + len(para) > target and size >= 150:
            break
        paragraphs.append(para)
        size += len(para) + 2
    while paragraphs[-1].startswith("## "):
        paragraphs.pop()
    return "\n\n".join(paragraphs) + "\n"


def _journal_line(rng: random.Random, mention: list[str]) -> str:
    words = [rng.choice(_NAMES).capitalize(), rng.choice(_VERBS)]
    words += [
        rng.choice(_FILLER if rng.random() < 0.4 else _NOUNS) for _ in range(rng.randint(4, 14))
    ]
    if rng.random() < 0.35:
        words.insert(rng.randrange(2, len(words) + 1), rng.choice(mention))
    if rng.random() < 0.2:
        words.append(f"{rng.randint(2, 900)} EUR")
    return " ".join(words)


def _journal(
    lines: int, unread: int, titles: list[str], seed: int
) -> tuple[dict[str, list[str]], list[str]]:
    """Day -> read lines (over DAYS days before today), and today's unread lines."""
    rng = random.Random(f"{seed}-journal")
    mention = titles[:STABLE_TITLES]
    days: dict[str, list[str]] = {}
    for n in range(lines):
        day = (TODAY - timedelta(days=DAYS - n * DAYS // max(1, lines))).isoformat()
        days.setdefault(day, []).append(_journal_line(rng, mention))
    today = [_journal_line(rng, mention) for _ in range(unread)]
    return days, today


def _hubs(names: list[str]) -> tuple[dict[str, tuple[str, list[str]]], list[str]]:
    """Hub pages (name -> (title, linked names)) over `names`, and the top-level hubs for the map."""
    hubs: dict[str, tuple[str, list[str]]] = {}
    level, members = 1, names
    while True:
        groups = [members[k : k + HUB_FANOUT] for k in range(0, len(members), HUB_FANOUT)]
        made = []
        for g, group in enumerate(groups, start=1):
            name = f"hub-{level}-{g:03d}"
            hubs[name] = (f"Hub {level} {g:03d}", group)
            made.append(name)
        if len(made) <= 20:
            return hubs, made
        level, members = level + 1, made


def _map(top: list[str], hubs: dict[str, tuple[str, list[str]]], open_lines: list[str]) -> str:
    entries = "".join(f"- [[{h}]] — {hubs[h][0]}\n" for h in top)
    head = "# Map\n\nThis wiki's pages, kept in line by the gardener. The hubs below reach every page.\n\n"
    tail = "\n## Open\n\n" + "".join(f"{ln}\n" for ln in open_lines)
    pad_to = MAP_TARGET - len(head) - len(tail) - len("## Pages\n\n") - len(entries)
    filler = ("Notes: " + " ".join(_FILLER * 20))[: max(0, pad_to - 2)].rsplit(" ", 1)[0] + "\n\n"
    filler = filler if pad_to > 20 else ""
    text = head + filler + "## Pages\n\n" + entries + tail
    if len(text) < MAP_TARGET:  # top up the prose to the exact target
        text = text.replace("\n\n## Pages", "." * (MAP_TARGET - len(text)) + "\n\n## Pages", 1)
    assert len(text) <= wiki.MAP_CEILING, len(text)
    return text


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def generate(
    root: Path,
    *,
    pages: int,
    lines: int = 1_000,
    unread: int = 200,
    seed: int = 7,
    layout: Layout | None = None,
) -> Generated:
    """Make a committed project at `root` (which must not exist) and leave `unread` lines uncommitted.

    `layout` places the wiki and the journal (default: `wiki/` and `raw/journal/`); the pages,
    the map and the journal are the same bytes in every layout."""
    started = time.perf_counter()
    if root.exists():
        raise FileExistsError(root)
    root.mkdir(parents=True)
    lay = layout or Layout()
    init_layout(root, lay)
    rng = random.Random(f"{seed}-titles")
    # Hubs take about one page in HUB_FANOUT: content pages are what is left.
    content = max(1, pages - max(1, -(-pages // (HUB_FANOUT + 1))))
    titles = _titles(content, rng)
    names = [slugify(t) for t in titles]
    hubs, top = _hubs(names)
    while content + len(hubs) > pages and content > 1:  # a second hub level can tip it over
        content -= 1
        titles, names = titles[:content], names[:content]
        hubs, top = _hubs(names)
    days, today = _journal(lines, unread, titles, seed)
    day_names = sorted(days)
    state_rng = random.Random(f"{seed}-states")
    for i, (name, title) in enumerate(zip(names, titles, strict=True)):
        state = state_rng.choices(wiki.STATES, weights=(6, 2, 2, 1))[0]
        source = (
            sorted(set(state_rng.sample(day_names, k=min(len(day_names), state_rng.randint(1, 3)))))
            if day_names
            else []
        )
        body = _body(i, _size(random.Random(f"{seed}-size-{i}")), names, titles, seed)
        _write(root / lay.page_path(name), wiki.new_page(title, body, state=state, source=source))
    member_titles = dict(zip(names, titles, strict=True))
    for name, (title, members) in hubs.items():
        body = "".join(
            f"- [[{m}]]"
            + (f" — {member_titles[m]}" if m in member_titles else f" — {hubs[m][0]}")
            + "\n"
            for m in members
        )
        _write(root / lay.page_path(name), wiki.new_page(title, body))
    open_lines = [f"- Does [[{names[0]}]] still hold after [[{names[min(1, len(names) - 1)]}]]?"]
    _write(root / lay.map_path(), _map(top, hubs, open_lines))
    read: dict[str, set[str]] = {}
    for day, day_lines in days.items():
        text = "".join(f"{ln}\n" for ln in day_lines)
        _write(root / lay.day_path(day), text)
        read = journal.mark_read(read, journal.parse_day(day, text))
    _write(root / journal.READ_PATH, journal.render_read(read))
    _git(root, "-c", "init.defaultBranch=main", "init", "-q")
    _git(root, "add", "-A")
    _git(
        root,
        "commit",
        "-q",
        "--no-verify",
        "-m",
        f"synthetic project: {pages} pages, {lines} journal lines",
    )
    base = _git(root, "rev-parse", "HEAD").strip()
    today_path = root / lay.day_path(TODAY.isoformat())
    today_text = "".join(f"{ln}\n" for ln in today)
    if today:
        _write(today_path, today_text)
    return Generated(
        root=root,
        pages=len(names) + len(hubs),
        hubs=len(hubs),
        base=base,
        today_path=today_path,
        today_text=today_text,
        read_lines=lines,
        unread_lines=unread,
        titles=list(zip(names, titles, strict=True)),
        seconds=time.perf_counter() - started,
    )


def cached(cache: Path, pages: int, *, lines: int = 1_000, unread: int = 200, seed: int = 7) -> Generated:
    """A generated project kept in `cache` between runs: made the first time (50,000 pages take a
    few minutes), restored (`restore`) every time after. Its `.git/gitgarden/` caches stay, as
    between a person's passes."""
    root = cache / f"pass-{pages}-{lines}-{unread}-{seed}-v{GEN_VERSION}"
    made = root.with_name(root.name + ".json")
    if root.is_dir() and made.is_file():
        data = json.loads(made.read_text())
        gen = Generated(**{**data, "root": root, "today_path": Path(data["today_path"]), "titles": [tuple(t) for t in data["titles"]]})
        restore(gen)
        return gen
    if root.exists():
        shutil.rmtree(root)  # a run stopped while it was made
    cache.mkdir(parents=True, exist_ok=True)
    gen = generate(root, pages=pages, lines=lines, unread=unread, seed=seed)
    made.write_text(json.dumps({**asdict(gen), "root": str(root), "today_path": str(gen.today_path)}))
    return gen


def restore(gen: Generated) -> None:
    """Put the project back as `generate` left it: base commit, no tags, today's lines unread.

    Files that did not change keep their bytes and mtimes, so git's stat cache stays
    warm, as in a real project between passes.
    """
    root = gen.root
    _git(root, "reset", "-q", "--hard", gen.base)
    _git(root, "clean", "-fdq")
    tags = _git(root, "tag", "-l").split()  # the generator makes none: snapshots and bench tags
    if tags:
        _git(root, "tag", "-d", *tags)
    if gen.today_text:
        _write(gen.today_path, gen.today_text)
    _git(root, "update-index", "-q", "--refresh")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--lines", type=int, default=1_000, help="journal lines already read")
    parser.add_argument(
        "--unread", type=int, default=200, help="lines captured today, not yet read"
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    gen = generate(
        args.path, pages=args.pages, lines=args.lines, unread=args.unread, seed=args.seed
    )
    print(
        f"{gen.root}: {gen.pages} pages ({gen.hubs} hubs), {gen.read_lines} read + {gen.unread_lines} unread lines, {gen.seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
