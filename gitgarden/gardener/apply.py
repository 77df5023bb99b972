"""The apply and guard steps of a pass (docs/architecture.md, "One pass", steps 9–10), the repair round, and the accounting.

`apply_and_guard` applies the model's operations to the pass's in-memory tree
one by one; an operation the guard (or rule 11, grounding) refuses is dropped
whole and the others stand. `repair` shows the model its refusals in the same
conversation and applies its corrections the same way. The `Ledger` keeps
every offered line accounted for across the rounds, and `account` turns it
into the read position and the set-aside lines the pass commits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitgarden.errors import ModelError
from gitgarden.gardener import repair as follow_up
from gitgarden.gardener import setaside
from gitgarden.gardener.ask import no_room_for
from gitgarden.gardener.calls import call_model
from gitgarden.gardener.operations import Applied, ApplyContext, Refusal, apply_op
from gitgarden.gardener.project_page import general_title
from gitgarden.gardener.repair import Refused
from gitgarden.gardener.state import Pass, Reading, Work
from gitgarden.gardener.steps import Step
from gitgarden.gardener.tidying import split_pushed_over
from gitgarden.guard import grounding
from gitgarden.guard import rules as guard
from gitgarden.model import llm
from gitgarden.model.operations import Op
from gitgarden.wiki import captured, journal, pages, tidy
from gitgarden.wiki.subject_index import SubjectIndex

if TYPE_CHECKING:
    from gitgarden.gardener.outcome import PassResult
    from gitgarden.model.llm import Answer

__all__ = ["Round", "Ledger", "apply_and_guard", "repair", "guard_whole_diff", "account", "NO_REASON"]

NO_REASON = "no reason given"  # a skip that said none (older replies, scripts)


@dataclass
class Round:
    """What one model round's operations came to."""

    landed: int = 0  # operations that landed, "already there" ones included (skips are not counted)
    read: set[str] = field(default_factory=set)  # offered lines cited by a landed operation or a skip
    refused: list[Refused] = field(default_factory=list)
    skips: dict[str, str] = field(default_factory=dict)  # offered line cited by a skip -> its reason
    used: set[str] = field(default_factory=set)  # offered lines cited by an operation that landed


@dataclass
class Ledger:
    """Every offered line accounted for across the rounds: read, or held unread by a refusal.

    A later round speaks for the lines it cites: a line refused in the first
    round and landed in the repair round is read; a line an operation landed
    for but another refused stays unread (re-promoting it is idempotent, losing
    it is not).
    """

    status: dict[str, str] = field(default_factory=dict)  # line id -> "read" | "refused"
    last_refusal: dict[str, str] = field(default_factory=dict)
    held: list[list[str]] = field(default_factory=list)  # the offered lines each refusal cited
    rounds: list[Round] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why a repair round was not asked
    listed: int = 0  # refusal sentences the rounds added to the record
    figures: dict[str, int] = field(default_factory=dict)  # the promote job's figures, before tidying adds its own
    skips: dict[str, str] = field(default_factory=dict)  # line id -> the reason of the skip that cited it
    used: set[str] = field(default_factory=set)  # lines some landed operation cited (not only skipped)

    def add(self, rnd: Round, offered: Mapping[str, journal.JournalLine]) -> None:
        refused: dict[str, str] = {}
        for item in rnd.refused:
            self.held.append(item.cited(offered))
            for line_id in item.cited(offered):
                refused.setdefault(line_id, (item.reasons() or ["refused"])[0])
        for line_id in rnd.read - set(refused):
            self.status[line_id] = "read"
        for line_id, reason in rnd.skips.items():
            self.skips.setdefault(line_id, reason)
        self.used |= rnd.used
        for line_id, reason in refused.items():
            self.status[line_id] = "refused"
            self.last_refusal[line_id] = f"{_op_of(rnd, line_id)}: {reason}"
        self.rounds.append(rnd)

    def ids(self, state: str) -> set[str]:
        return {i for i, s in self.status.items() if s == state}

    @property
    def landed(self) -> int:
        return sum(r.landed for r in self.rounds)

    def open_refusals(self) -> bool:
        """True when a refusal stands. A refusal is resolved only when every offered line it cited
        ends read (a later round landed it); one citing no offered line never is."""
        return any(not ids or any(self.status.get(i) != "read" for i in ids) for ids in self.held)

    def record(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"refused": len(r.refused), "landed": r.landed} for r in self.rounds]
        if out and self.notes:
            out[-1]["repair"] = "; ".join(self.notes)
        return out


def _op_of(rnd: Round, line_id: str) -> str:
    for item in rnd.refused:
        if line_id in item.op.lines:
            return item.op.describe()
    return "?"


def apply_and_guard(run: Pass, work: Work, answer: Answer) -> Ledger:
    """Apply the model's operations through the guard; what landed stays in `work.tree`, and the
    ledger says which offered lines are read and which a refusal holds."""
    budget = run.budget
    run.on_step(Step("applying", f"{len(answer.operations)} operation(s)", tokens=budget.spent.total_tokens if budget else 0))
    ledger = Ledger()
    ledger.add(_apply_all(run, work, answer.operations, ledger), work.offered)
    return ledger


def repair(run: Pass, work: Work, answer: Answer, ledger: Ledger) -> Ledger:
    """While operations are refused, show the model its refusals in the same conversation and apply
    its corrections (at most `repair_rounds` times, within the budget)."""
    settings, model, budget = run.settings, run.model, run.budget
    assert model is not None and budget is not None, "a repair round follows an ask"
    rnd = ledger.rounds[-1]
    # Small mode's operations are code's own writes from a sort: there is nothing for the model to correct.
    rounds = 0 if run.result.mode == "small" else settings.repair_rounds
    for n in range(2, rounds + 2):
        if not rnd.refused:
            break
        convo = llm.follow_up(answer, follow_up.request(rnd.refused, work.offered))
        short = no_room_for(convo, settings, budget)
        if short:
            ledger.notes.append(f"round {n} not asked: {short}")
            break
        try:
            answer = call_model(run, model, convo, budget)
        except ModelError as exc:  # the first round's work stands; the refused lines stay unread
            ledger.notes.append(f"round {n} failed: {exc}")
            break
        rnd = _apply_all(run, work, answer.operations, ledger, label=f"round {n}: ")
        ledger.add(rnd, work.offered)
    result = run.result
    ledger.figures = {"created": len(result.created), "appended": len(result.appended), "refused": len(result.refusals)}
    return ledger


def _premises_title(run: Pass, op: Op) -> bool:
    """True for small mode's page for facts without a subject, titled with AGENTS.md's own first
    heading or the project's name: the person's words, not the model's (`title_from` is an internal
    field no model reply can carry), checked again here against the files they come from."""
    if op.kind != "create_page" or op.get("title_from") not in ("AGENTS.md", "project"):
        return False
    return general_title(run.project.root) == (op.get("title"), op.get("title_from"))


def _skipped(rnd: Round, op: Op, cited: set[str]) -> None:
    """A skip: its lines are read, each with the model's reason for leaving it (or NO_REASON)."""
    rnd.read |= cited
    reason = " ".join(str(op.get("reason") or "").split())
    for line_id in sorted(cited):
        rnd.skips.setdefault(line_id, reason or NO_REASON)


def _grounded(run: Pass, work: Work, op: Op, applied: Applied, grounding_min: float) -> tuple[list[Any], float | None]:
    """Rule 11 for one operation: the verdicts on the sentences it writes that its cited lines do
    not carry (a new page's title among them), and the lowest score."""
    titles = work.titles
    names = {p: pages.page_name(p) or "" for p, _ in applied.prose}
    prose_titles = {p: titles[n][0] if n in titles else str(op.get("title") or "") for p, n in names.items()}
    prose = list(applied.prose)
    for path, name in names.items():
        if name not in titles and prose_titles[path] and not _premises_title(run, op):
            # A new page's title grounds its body, so it must itself come from the cited lines.
            prose.append((f"{path} (title)", prose_titles[path]))
    cited_texts = [work.offered[i].text for i in op.lines]
    days = [work.offered[i].day for i in op.lines]
    # The other offered lines: a verdict names those holding a refused sentence's missing
    # words, for the repair round to cite. They ground nothing unless the operation cites them.
    elsewhere = {i: (ln.text, ln.day) for i, ln in work.offered.items() if i not in op.lines}
    return grounding.check(prose, cited_texts, prose_titles, grounding_min, days=days, elsewhere=elsewhere)


def _apply_all(run: Pass, work: Work, ops: list[Op], ledger: Ledger, label: str = "") -> Round:
    """Apply one round's operations through the guard; what landed stays in `work.tree`."""
    result, titles, grounding_min = run.result, work.titles, run.settings.grounding_min
    ctx = ApplyContext(
        offered=work.offered,
        today=f"{run.now().astimezone():%Y-%m-%d}",  # the person's day, as capture writes it
        conversation=work.ctx_conversation,
        journal_texts=work.journal_texts,
        place=work.place,
        keys=work.keys,
        agent_lines=captured.by_line(captured.load(captured.log_path(run.git_dir)), work.offered.values()),
    )
    rnd = Round()
    round_no = len(ledger.rounds) + 1
    links_stale = True  # the link index is made again only when a landed operation changed the titles

    def refuse(op: Op, verdicts: list[Any]) -> None:
        item = Refused(op, verdicts)
        rnd.refused.append(item)
        reasons = [f"{label}{op.describe()}: {r}" for r in item.reasons()]
        result.refusals.extend(reasons)
        ledger.listed += len(reasons)
        result.grounding.extend(_grounding_record(round_no, op, verdicts, result.grounding))

    for op in ops:
        cited = {i for i in op.lines if i in work.offered}
        if op.kind == "skip":
            _skipped(rnd, op, cited)
            continue
        if links_stale or ctx.links is None:
            ctx.links, links_stale = tidy.link_index(titles), False
            ctx.subjects = SubjectIndex.of(titles)
        applied = apply_op(op, work.tree, ctx)
        if isinstance(applied, Applied) and split_pushed_over(run, work, applied):
            ctx.links = tidy.link_index(titles)  # the split's parts are new pages
            applied = apply_op(op, work.tree, ctx)  # again, onto the page's kept part
        if isinstance(applied, Refusal):
            refuse(op, [applied.reason])
            continue
        if not applied.writes:
            # Already there (or nothing to change): it lands, and its lines are read.
            rnd.landed += 1
            rnd.read |= cited
            rnd.used |= cited
            if applied.already_in:
                result.already_there.append(f"{op.describe()}: already in {applied.already_in}")
            continue
        lowest: float | None = None
        if applied.prose:
            # Rule 11: a sentence the cited lines do not carry drops the whole operation.
            verdicts, lowest = _grounded(run, work, op, applied, grounding_min)
            if verdicts:
                refuse(op, list(verdicts))
                continue
        errors = work.try_apply(applied)
        if errors:
            refuse(op, errors)
            continue
        if op.kind == "create_page" and applied.created:
            name = pages.page_name(applied.created[0]) or ""
            if name.lower() != str(op.get("page")).strip().lower():
                work.keys[str(op.get("page")).strip().lower()] = name  # later operations name it by its key
        rnd.landed += 1
        rnd.read |= cited
        rnd.used |= cited
        if lowest is not None:
            old = result.grounding_min_score
            result.grounding_min_score = lowest if old is None else min(old, lowest)
        now_titles = tidy.page_titles({p: work.tree[p] for p in applied.writes if p in work.tree})
        if any(titles.get(name) != entry for name, entry in now_titles.items()):
            links_stale = True  # a page made, or a title or alias changed (an append changes neither)
        titles.update(now_titles)
        result.provenance.extend(_provenance(op, applied, work))
        result.created.extend(applied.created)
        result.appended.extend(p for p in applied.appended if p not in result.appended)
        if op.kind == "split":
            result.split.append(op.get("page"))
    return rnd


def _provenance(op: Op, applied: Applied, work: Work) -> list[dict[str, Any]]:
    """What a landed operation wrote (its prose, by page) and the offered lines it cites, word for word."""
    lines = [{"id": i, "text": work.offered[i].text} for i in op.lines if i in work.offered]
    return [
        {"page": pages.page_name(path) or path, "op": op.kind, "text": text, "lines": lines}
        for path, text in applied.prose
        if text.strip()
    ]


def _grounding_record(round_no: int, op: Op, verdicts: list[Any], seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rule 11's refused sentences as the record keeps them: why each was refused, at a glance.

    One entry a sentence (a body that repeats a sentence repeats its verdict): the round, the
    operation, the page, the sentence, its score and threshold, the words the cited lines lack (the
    numbers and names among them `unfounded`), the lines cited, and the other offered lines that
    hold the missing words (`lines_holding`: line id -> words).
    """
    out: list[dict[str, Any]] = []
    known = {(e["round"], e["op"], e["page"], e["sentence"]) for e in seen}
    for v in verdicts:
        if not isinstance(v, grounding.GroundingVerdict):
            continue
        key = (round_no, op.describe(), v.path, v.line)
        if key in known:
            continue
        known.add(key)
        data = v.to_json()
        out.append({
            "round": round_no, "op": op.describe(), "page": v.path, "sentence": v.line,
            "score": data["score"], "threshold": v.threshold, "missing": data["missing"],
            "unfounded": data["unfounded"], "cited": list(op.lines), "lines_holding": data["lines_holding"],
        })  # fmt: skip
    return out


def guard_whole_diff(run: Pass, work: Work) -> bool:
    """The guard on everything the pass would write, against the tree it started from; False (the
    pass failed, nothing is written) when it refuses."""
    final_verdicts = guard.check(work.base, work.tree, work.guard_ctx())
    if final_verdicts:
        result = run.result
        result.outcome = "failed"
        result.detail = "the guard refused the pass's whole diff: " + "; ".join(map(str, final_verdicts[:3]))
        result.refusals.extend(str(v) for v in final_verdicts)
        return False
    return True


def account(run: Pass, reading: Reading, work: Work, ledger: Ledger | None) -> dict[str, bytes]:
    """Every offered line accounted for: the read position and the set-aside lines the pass
    commits (bytes by path, only what changed), and what the record says about the rest.
    Without the promote job the journal is left alone: nothing to commit."""
    if "promote" not in run.jobs:
        return {}
    result = run.result
    writes = _account(result, reading, work.offered_lines(), ledger)
    if ledger is not None:
        read_lines = [ln for ln in work.offered_lines() if ledger.status.get(ln.id) == "read"]
        result.captured_by = captured.who(captured.load(captured.log_path(run.git_dir)), read_lines)
    result.job_figures["promote"] = {"offered": len(result.offered), "read": result.marked_read, **_promoted(ledger)}
    return writes


def _promoted(ledger: Ledger | None) -> dict[str, int]:
    if ledger is None or not ledger.figures:
        return {"created": 0, "appended": 0, "refused": 0}
    return ledger.figures


def _unread_reasons(
    result: PassResult, offered: list[journal.JournalLine], status: Mapping[str, str], ledger: Ledger
) -> list[dict[str, str]]:
    """Every offered line the pass leaves unread, with why: what small mode said of it (unsure, its
    request failed), the refusal of the operation that cited it, or that no operation cited it."""
    given = {u["line"]: u["reason"] for u in result.unread}
    out = []
    for ln in offered:
        if status.get(ln.id) == "read":
            continue
        refusal = ledger.last_refusal.get(ln.id)
        why = given.get(ln.id) or (f"refused: {refusal}" if refusal else "no operation of the reply cited it")
        out.append({"line": ln.id, "text": ln.text, "reason": why})
    return out


def _account(result: PassResult, reading: Reading, offered: list[journal.JournalLine], ledger: Ledger | None) -> dict[str, bytes]:
    writes: dict[str, bytes] = {}
    status = {} if ledger is None else ledger.status
    read_lines = [ln for ln in offered if status.get(ln.id) == "read"]
    if ledger is not None:
        result.not_cited = [ln.id for ln in offered if ln.id not in status]
        result.rounds = ledger.record()
        # The lines read only because a skip cited them, with its reason: the person can see them and take them back.
        result.skipped = [
            {"line": ln.id, "text": ln.text, "reason": ledger.skips[ln.id]}
            for ln in offered
            if status.get(ln.id) == "read" and ln.id in ledger.skips and ln.id not in ledger.used
        ]
        result.unread = _unread_reasons(result, offered, status, ledger)
    if read_lines:
        writes[journal.READ_PATH] = journal.render_read(journal.mark_read(reading.read, read_lines)).encode()
        result.marked_read = 0 if result.dry_run else len(read_lines)
    refused = {} if ledger is None else {i: ledger.last_refusal[i] for i in ledger.ids("refused")}
    # A line the model stays unsure of counts as refused: after a few passes it is set aside and
    # listed, never offered for ever.
    refused.update({u["line"]: u["reason"] for u in result.unread if u["reason"].startswith("unsure")})
    state, newly = setaside.account(
        reading.aside,
        unread=reading.unread,
        offered=offered if ledger is not None else [],  # no model answered: no line's run moves
        refused=refused,
        long_lines=reading.long_lines,
        pass_id=result.pass_id,
    )
    for entry in newly:
        why = "too long for any prompt" if entry.why == setaside.TOO_LONG else f"refused in {setaside.STRIKES} passes in a row"
        result.set_aside.append(f"{entry.line} ({why}: {entry.reason})")
        result.hints.append(f"Set aside {entry.line}, {why}: {entry.advice()}.")
    if state != reading.aside_before:
        writes[setaside.SET_ASIDE_PATH] = setaside.render(state).encode()
    return writes

