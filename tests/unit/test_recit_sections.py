"""Each free section's rule on the cases that broke it in a session written in other words
than horizon's own: a `git diff` that "fixed" a test, a ticket a `git log` named, a ticket
"not fixed yet" taken for closed, a step stated as "Now let me", a decision reversed, an
operator's rule copied into Décisions, French typography in an English view."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import count

import pytest

from horizon.core.blocks import Item
from horizon.core.facts import is_passing_word
from horizon.core.folds import compose_recit
from horizon.core.labels import ENGLISH, FRENCH
from horizon.core.operator_words import is_request, is_rule
from horizon.core.recit import Recit
from horizon.core.settings import HorizonSettings
from horizon.core.statements import stated_step
from horizon.core.tickets import ticket_states
from horizon.core.truncation import Truncation
from horizon.core.zone_state import Context

BEE = "mia"


class Session:
    """Exchanges as a runtime writes them, folded into a récit one by one."""

    def __init__(self, langue: str = "en") -> None:
        self.settings = HorizonSettings(actif=True, langue=langue)
        self.items: list[Item] = []
        self._seqs: Iterator[int] = count(1)

    def add(self, kind: str, question: str, answer: str, **fields: object) -> int:
        seq = next(self._seqs)
        self.items.append(Item(seq=seq, instant=float(seq), type=kind, question=question,
                               answer=answer, lighthouse=bool(fields.pop("lighthouse", False)),
                               **fields))  # type: ignore[arg-type]
        return seq

    def call(self, command: str, output: str, tool: str = "Bash", **fields: object) -> int:
        return self.add("tool", command, output, tool=tool, **fields)

    def bee(self, question: str, answer: str) -> int:
        return self.add("task", question, answer)

    def operator(self, words: str, answer: str = "OK.") -> int:
        return self.add("conversation", words, answer, lighthouse=True,
                        sender="apicultrice")

    def recit(self, order: list[int] | None = None) -> Recit:
        """Folded in seq order, or in `order` (seqs): lighthouses folded late."""
        items = self.items if order is None else [self.items[seq - 1] for seq in order]
        ctx = Context(BEE, self.settings, Truncation(self.settings.ligne_max,
                                                     self.settings.labels), 0.0, None)
        recit = Recit()
        for item in items:
            recit = compose_recit(recit, None, [item], ctx, None)
        return recit

    def section(self, name: str, order: list[int] | None = None) -> list[str]:
        return [line.text for line in self.recit(order).lines_of(name)]


PASSED = "collected 12 items\n\n============ 12 passed in 0.41s ============"
FAILED = ("FAILED tests/test_wind.py::test_gust - AssertionError: 3 != 4\n"
          "============ 1 failed, 11 passed in 0.52s ============")


def test_a_read_only_call_neither_fixes_nor_fails() -> None:
    session = Session()
    failed = session.call("pytest tests/test_wind.py", FAILED)
    session.call("git diff tests/test_wind.py", "diff --git a/tests/test_wind.py ...")
    session.call("grep -rn gust_limit src", "", ok=False)  # grep found nothing: exit 1
    session.call("cat tests/test_wind.py", "def test_gust(): ...", tool="Read")
    errors = session.section("Erreurs")
    assert len(errors) == 1 and errors[0].startswith(f"#{failed} pytest tests/test_wind.py")


def test_a_failure_is_fixed_by_the_same_command_not_by_another_success() -> None:
    session = Session()
    session.call("make docs", "make: *** [Makefile:12: docs] Error 2")
    session.call("ls build", "index.html")
    session.call("cargo fmt", "")
    assert any("make docs" in line for line in session.section("Erreurs"))
    session.call("make docs", "docs built in build/html")
    assert session.section("Erreurs") == []


def test_a_whole_suite_run_fixes_test_failures_and_a_filtered_one_does_not() -> None:
    session = Session()
    session.call("pytest tests/test_wind.py -x", FAILED)
    session.call("pytest -k rain", PASSED)
    assert session.section("Erreurs")
    session.call("python -m pytest -q", PASSED)
    assert session.section("Erreurs") == []


@pytest.mark.parametrize("sessions", ["nox -s tests", "tox -e py311", "nox -s tests-3.12",
                                      "tox -e py311,py312", "nox --session=unit"])
def test_a_tox_or_nox_session_that_tests_runs_the_whole_suite(sessions: str) -> None:
    session = Session()
    session.call("pytest tests/test_wind.py", FAILED)
    session.call(sessions, PASSED)
    assert session.section("Erreurs") == []


@pytest.mark.parametrize("other", ["nox -s lint", "tox -e py311,docs",
                                   "nox -s tests -- tests/test_rain.py"])
def test_a_tox_or_nox_session_that_does_something_else_fixes_no_test(other: str) -> None:
    session = Session()
    session.call("pytest tests/test_wind.py", FAILED)
    session.call(other, PASSED)
    assert session.section("Erreurs")


def test_a_test_run_covering_the_failing_path_fixes_it() -> None:
    session = Session()
    session.call("pytest -q", FAILED)  # the suite names the failing file
    assert "tests/test_wind.py" in " ".join(session.section("Erreurs"))
    session.call("pytest tests/", PASSED)
    assert session.section("Erreurs") == []


def test_ok_is_trusted_over_the_output() -> None:
    session = Session()
    session.call("./deploy.sh", "all good, 0 errors", ok=False)
    session.call("./check.sh", "error: 4 warnings treated as errors", ok=True)
    errors = session.section("Erreurs")
    assert len(errors) == 1 and "./deploy.sh" in errors[0]


def test_a_failure_of_another_tool_is_named_by_the_tool_and_its_file() -> None:
    session = Session()
    session.call("src/wind.rs", "Error: old_string not found in file", tool="Edit",
                 files=("src/wind.rs",))
    assert session.section("Erreurs")[0].startswith("#1 Edit src/wind.rs")
    session.call("src/wind.rs", "The file was updated.", tool="Edit", files=("src/wind.rs",))
    assert session.section("Erreurs") == []


def test_a_ticket_named_in_a_tool_output_starts_nothing() -> None:
    session = Session()
    session.call("git log --oneline -5", "a1b2 WX-228 merged\nc3d4 fix WX-229")
    session.call("./build.sh", "built; see WX-231 for the known warning")
    assert session.section("Travail en cours") == []


def test_a_negated_closing_keeps_a_ticket_in_flight() -> None:
    session = Session()
    session.operator("WX-230: the gust parser drops readings above 40 kt.")
    session.bee("status?", "WX-230 is not fixed yet, the rounding is still off.")
    assert any("WX-230" in line for line in session.section("Travail en cours"))
    session.bee("and now?", "WX-230 is fixed and merged.")
    assert not any("WX-230" in line for line in session.section("Travail en cours"))


@pytest.mark.parametrize(("text", "expected"), [
    ("WX-230 is merged, now on WX-231.", {"WX-230": 2, "WX-231": 1}),
    ("Closed #412; starting BILL-9.", {"#412": 2, "BILL-9": 1}),
    ("Le ticket WX-230 n'est pas encore corrigé.", {"WX-230": 1}),
    ("WX-230 will be merged once CI passes.", {"WX-230": 1}),
    ("WX-12 — won't fix, closing.", {"WX-12": 2}),
    ("WX-12 est en prod depuis ce matin.", {"WX-12": 2}),
    ("Done with WX-12, moving to WX-13.", {"WX-12": 2, "WX-13": 1}),
    ("WX-12 is done except for the docs.", {"WX-12": 1}),
    ("Moved WX-12 to Done in Jira.", {"WX-12": 2}),
    ("See issue #88 for the background.", {"#88": 0}),
    ("The CSV is UTF-8 and each row has a SHA-256 checksum.", {}),
    ("Is WX-230 fixed?", {"WX-230": 0}),
    ("Parking issue 57 for now, back to BILL-9.", {"#57": 1, "BILL-9": 1}),
    ("WX-230, WX-231 and WX-232 are done.", {"WX-230": 2, "WX-231": 2, "WX-232": 2}),
    ("Ticket WX-230 livré.", {"WX-230": 2}),
    ("WX-230 looks fixed but the flake remains.", {"WX-230": 1}),
    ("Once WX-12 is merged I will tag.", {"WX-12": 1}),
    ("WX-12 ✅", {"WX-12": 2}),
    ("WX-12 is live.", {"WX-12": 2}),
    ("Reusing the approach from WX-12.", {"WX-12": 0}),
])
def test_a_ticket_state_is_the_word_nearest_it(text: str, expected: dict[str, int]) -> None:
    assert {name: state for name, state, _ in ticket_states(text)} == expected


def test_parked_tickets_stay_in_flight_and_filler_is_no_task() -> None:
    session = Session()
    session.operator("WX-230: port the gust parser to the new sensor API.")
    for turn in range(60):  # far past the old 48-entry window
        session.call(f"cargo build --bin station{turn}", "Finished dev target")
    session.add("task", "Go on.", "Continuing.")
    work = session.section("Travail en cours")
    assert any("WX-230" in line for line in work)
    assert not any("Go on" in line for line in work)


@pytest.mark.parametrize("answer", [
    "Now let me run the anemometer tests.", "Plan: run the anemometer tests.",
    "I'm going to run the anemometer tests now.", "Next step: run the anemometer tests.",
    "Next, I'll run the anemometer tests.", "Then I will run the anemometer tests.",
    "Prochaine étape : lancer les tests de l'anémomètre.",
    "Je vais maintenant lancer les tests de l'anémomètre.",
    "Ensuite, je lance les tests de l'anémomètre.",
])
def test_a_next_step_in_any_common_phrasing(answer: str) -> None:
    step = stated_step(f"The parser compiles again. {answer}")
    assert step is not None
    assert "anémomètre" in step or "anemometer" in step


def test_the_newest_step_wins_whichever_fold_brought_it() -> None:
    session = Session()
    old = session.operator("Please port the rain gauge next.")
    session.bee("continue", "Now let me port the anemometer driver.")
    newest = session.bee("continue", "Plan: calibrate the wind vane.")
    late = [*range(old + 1, newest + 1), old]  # the operator's request folded last
    assert session.section("Prochaine étape", late) == [f"#{newest} calibrate the wind vane"]


def test_a_reversed_decision_is_replaced_and_the_operator_is_not_copied() -> None:
    session = Session()
    session.operator("Always run cargo clippy before committing.")
    session.bee("storage?", "Decision: we'll store the readings in SQLite for now.")
    session.bee("units?", "Let's use metric units in the public API.")
    newest = session.bee("load?", "Change of plan: readings go to Postgres instead of "
                                  "SQLite, the load is too high.")
    decisions = session.section("Décisions")
    assert decisions[0].startswith(f"#{newest} Change of plan")
    assert any("metric units" in line for line in decisions)
    assert not any("in SQLite for now" in line for line in decisions)
    assert not any("clippy" in line for line in decisions), "Paroles is not copied"


def test_a_rule_said_again_and_again_is_one_quote() -> None:
    session = Session()
    for turn in range(50):
        if turn % 10 == 0:
            session.operator("Never push to main; open a pull request.")
        session.call(f"cargo test wind{turn}", "test result: ok. 3 passed")
    quotes = session.recit().paroles
    assert len(quotes) == 1 and quotes[0].count == 5


def test_files_are_named_once_a_bare_name_by_its_full_path() -> None:
    session = Session()
    session.call("src/station/wind.rs", "fn gust() {}", tool="Read")
    session.bee("fix wind.rs", "Done, wind.rs compiles.")
    session.call("./x", "ok", files=("docs/wind.md",))
    files = session.section("Fichiers")
    assert files[0].startswith("docs/wind.md")
    assert [line for line in files if "wind.rs" in line] == ["src/station/wind.rs (#2)"]


@pytest.mark.parametrize(("langue", "labels"), [("en", ENGLISH), ("fr", FRENCH)])
def test_horizons_own_lines_follow_the_languages_typography(langue: str, labels: object) -> None:
    session = Session(langue)
    session.call("make docs", "make: *** [docs] Error 2")
    session.operator("Please port the rain gauge next.")
    error, = session.section("Erreurs")
    step, = session.section("Prochaine étape")
    if langue == "en":
        assert "make docs: make" in error and " :" not in error
        assert step.startswith("#2 apicultrice: Please") and " :" not in step
    else:
        assert "make docs : make" in error
        assert step.startswith("#2 apicultrice : Please")


@pytest.mark.parametrize(("answer", "expected"), [
    ("Fixed. Next, I'll add a regression test. Let me know if you want more.",
     "add a regression test"),
    ("Done.\n\n**Next steps:**\n- Add a regression test for empty input\n- Update the docs",
     "Add a regression test for empty input"),
    ("## Progress\n- [x] parser\n- [ ] error recovery\n- [ ] docs", "error recovery"),
    ("I'm about to run the full migration against staging.",
     "run the full migration against staging"),
    ("Next step: TBD.", None),
    ("If you want, I'll also refactor the helper.", None),
    ("```yaml\n# next: enable tls\nport: 8080\n```", None),
])
def test_a_step_is_work_to_do_not_talk_nor_a_placeholder(answer: str,
                                                          expected: str | None) -> None:
    assert stated_step(answer) == expected


def test_a_rerun_wrapped_otherwise_is_the_same_run() -> None:
    session = Session()
    session.call("pytest tests/test_cart.py", FAILED.replace("test_wind", "test_cart"))
    session.call("timeout 120 pytest tests/test_cart.py -q", PASSED)
    assert session.section("Erreurs") == []
    session.call("npm run build", "error TS2322: Type 'string' is not assignable")
    session.call("cd /home/dev/shop && npm run build 2>&1 | tail -20", "built in 2.1s")
    assert session.section("Erreurs") == []
    session.call("cargo test", "test result: FAILED. 3 passed; 1 failed")
    session.call("cd web && npm test", PASSED)  # another project's suite
    assert any("cargo test" in line for line in session.section("Erreurs"))


def test_rerunning_one_test_leaves_the_others_of_its_file_failing() -> None:
    session = Session()
    session.call("pytest tests/test_parser.py", "FAILED tests/test_parser.py::test_empty\n"
                 "FAILED tests/test_parser.py::test_unicode\n== 2 failed, 8 passed ==")
    session.call("pytest tests/test_parser.py::test_empty", "== 1 passed in 0.1s ==")
    assert session.section("Erreurs")
    session.call("pytest tests/test_parser.py::test_unicode", "== 1 passed in 0.1s ==")
    assert session.section("Erreurs") == []


@pytest.mark.parametrize(("first", "reversal", "old"), [
    ("Going with Auth0 for login.", "Switching from Auth0 to Keycloak, we must self-host.",
     "Auth0 for login"),
    ("Décision : on stocke les fichiers bruts en CSV.",
     "On abandonne le CSV au profit de Parquet pour les fichiers bruts.", "en CSV"),
    ("We'll use Celery for the background jobs.",
     "Actually, let's not bring in Celery: RQ is enough, jobs run on RQ.", "Celery for"),
    ("Decision: cache responses in memcached.",
     "Scratch that, memcached isn't available; caching in-process with an LRU instead.",
     "in memcached."),
])
def test_a_reversal_in_other_words_replaces_the_decision(first: str, reversal: str,
                                                        old: str) -> None:
    session = Session()
    session.bee("which?", first)
    session.bee("and now?", reversal)
    decisions = session.section("Décisions")
    assert decisions and not any(old in line for line in decisions)


def test_actions_and_undecided_words_are_no_decisions() -> None:
    session = Session()
    for answer in ("I'll use grep to find where the config is loaded.",
                   "Switching to the feature branch to check the diff.",
                   "No decision yet on the queue backend; I'll ask.",
                   "Je garde un œil sur la CI.", "Je prends #7189 moi-même."):
        session.bee("go", answer)
    assert session.section("Décisions") == []


def test_a_ticket_said_done_in_other_words_leaves_and_hands_off_words_open_nothing() -> None:
    session = Session()
    session.operator("WEB-77: the cart total is wrong. FYI OPS-40 is owned by the infra team.")
    assert [line for line in session.section("Travail en cours") if "OPS-40" in line] == []
    session.bee("status?", "The fix for WEB-77 is in, ticket closed.")
    assert session.section("Travail en cours") == []


def test_the_file_a_failure_names_is_among_the_files() -> None:
    session = Session()
    session.call("npm run build", "Failed to compile.\n./src/components/Chart.tsx:41:28\n"
                 "Type error: Property 'x' does not exist", ok=False)
    assert any("src/components/Chart.tsx" in line for line in session.section("Fichiers"))
    session.call("grep -rn /api/invoices/export src", "", tool="Bash")
    assert not any("/api/invoices" in line for line in session.section("Fichiers"))


@pytest.mark.parametrize("rule", [
    "Run the whole suite with make test before you tell me something is done; one green "
    "test file is not enough.",
    "When you change a public function or a command-line flag, update docs/cli.md in the "
    "same pull request.",
    "Tag me for review on every pull request, however small, and wait for my approval.",
    "No new dependency without asking me. Check first whether the standard library does it.",
    'Commit messages start with the ticket id, then a short summary, like "WX-12: handle '
    'empty frames". No emoji.',
    "Quand tu changes une fonction publique, mets à jour docs/cli.md dans la même pull "
    "request.",
    "Écris à la main l'entrée de CHANGELOG.md pour chaque ticket fermé.",
    "Aucune nouvelle dépendance sans me demander. Vérifie d'abord la bibliothèque standard.",
])
def test_a_standing_rule_said_again_is_neither_the_next_step_nor_the_task(rule: str) -> None:
    session = Session()
    session.operator(rule, "Noted.")
    session.bee("go", "I'll port the parser in src/parse.py to the new API.")
    session.operator(rule, "Still holds, no worries.")
    assert session.section("Prochaine étape") == [
        "#2 port the parser in src/parse.py to the new API"]
    assert session.section("Travail en cours") == []
    assert is_rule(rule) or not is_request(rule)


@pytest.mark.parametrize("request_", [
    "When you're done there, port the CSV export to polars.",
    "When you get a chance, add a test for the parser.",
    "If the build passes, merge the release branch.",
    "Quand tu as fini, il faudrait profiler DunningPolicy sur la grosse fixture.",
    "Ensuite, merci de nettoyer la gestion d'erreurs dans src/billing/api/routes.py.",
    "Une fois que c'est vert, tu pourras rédiger les notes de migration dans docs/taxes.md ?",
    "Prochaine chose à faire pour toi : brancher le correctif dans src/app/x.py.",
    "Your next job: profile the gust parser.",
])
def test_a_request_for_now_is_the_next_step(request_: str) -> None:
    assert is_request(request_)
    assert not is_rule(request_)
    session = Session()
    session.bee("go", "I'll port the parser in src/parse.py to the new API.")
    session.operator(request_, "On it.")
    assert session.section("Prochaine étape")[0].startswith("#2 apicultrice: ")


@pytest.mark.parametrize(("words", "passing"), [
    ("Quand tu as fini, il faudrait profiler DunningPolicy sur la grosse fixture.", True),
    ("Can you add a regression test for the DST bug?", True),
    ("Port the gust parser to the new API.", True),
    ("Tu en es où ?", True),
    ("Go on.", True),
    ("Park WX-12 for now.", True),
    ("Never push straight to main: open a pull request, even for a one-line fix.", False),
    ("Tag me for review on every pull request, however small.", False),
    ('Commit messages start with the ticket id, like "WX-12: handle empty frames".', False),
    ("Quand tu changes une fonction publique, mets à jour docs/cli.md.", False),
    ("When you touch the schema, add a migration.", False),
    ("Use tabs, not spaces, in the Makefile.", False),
    ("Utilise pathlib plutôt que os.path : c'est plus lisible.", False),
    ("No print statements in library code, use the logger instead.", False),
    ("Pas de print dans le code de la bibliothèque, utilise le logger.", False),
    ("Run `make check` before each push.", False),
    ("Let's add retry logic to the HTTP client.", True),
    ("Puis lance toute la suite de tests et dis-moi ce qui casse.", True),
    ("Ça te dérange de découper parser.py en deux modules ?", True),
    ("Change le port par défaut en 8080.", True),
    ("When you finish the refactor, bump the version to 2.1.", True),
    ("Don’t push to main.", False),
    ("No worries.", True),
    ("Pas de souci.", True),
    # A convention beside the task of the day stands; two tasks in a row pass.
    ("Commit messages use conventional commits: feat:, fix:, chore: and so on. Bump the "
     "partner timeout to 10s in the webhook client.", False),
    ("Refactor Allow so it takes a clock, tests are slow. And write a README section for "
     "the rate limit settings.", True),
    ("Ajoute l'accessibilité sur les boutons de l'onboarding. Et après, ajoute les "
     "traductions manquantes pour l'écran de synchro.", True),
    ("Tidy up the outputs in the vpc module, there are dupes. And after that put the rds "
     "params in a parameter group resource.", True),
    ("Can you add the config knob for the per-key limit? After that, bump the partner "
     "timeout to 10s in the webhook client.", True),
    ("Écris tes messages de commit en français, au présent. Range un peu SyncEngine, la "
     "fonction merge fait 120 lignes.", False),
    # Rules said by a scope, a floor, a habit or a house style.
    ("Hands off db/migrations, that's the DB team's turf. Write a README section for the "
     "rate limit settings.", False),
    ("btw. Table-driven tests for anything new, please.", False),
    ("dont commit .terraform.lock.hcl changes without pinging me first. update the README",
     False),
    ("On cible iOS 16 minimum, rien qui demande iOS 17. Ajoute un test pour la fusion.", False),
    ("PRs only. nobody pushes to main, that includes you.", False),
    ("Squash merges only.", False),
    # A French imperative known by its ending and what follows it, not by a list.
    ("Range un peu SyncEngine, la fonction merge fait 120 lignes.", True),
    ("Le format des dates dans EntryRow est moche, harmonise avec RelativeDay.", True),
    ("Fais en sorte que la liste se rafraîchisse après une synchro.", True),
    ("Même la CI de nuit tourne sur macOS 14.", False),
    ("switch the partition column to voyage_date pls. nobody queries by ingest date", True),
    ("SQL keywords lowercase in the models pls, thats our style", False),
    ("we dont use real customer data in fixtures, ever. synthesize it", False),
    ("Did you ever try the staging cluster?", True),
    ("Le fichier dont tu parles est src/app.py, corrige-le.", True),
])
def test_a_request_expires_and_a_rule_stands(words: str, passing: bool) -> None:
    assert is_passing_word(words) is passing


def test_a_request_said_again_stands() -> None:
    session = Session()
    session.operator("Write the regression test for parse_wind first, then fix it.", "OK.")
    assert [quote.passing for quote in session.recit().paroles] == [True]
    session.bee("go", "I'll port the parser in src/parse.py to the new API.")
    session.operator("Write the regression test for parse_wind first, then fix it.", "Still holds.")
    assert [(quote.seqs, quote.passing) for quote in session.recit().paroles] == [((1, 3),
                                                                                    False)]


RUNNER_FAILURES = {
    "go test ./...": ("=== RUN   TestParseConfig\n    config_test.go:42: expected 3, got 2\n"
                      "--- FAIL: TestParseConfig (0.00s)\nFAIL\n"
                      "FAIL\tgithub.com/acme/svc/internal/config\t0.012s\nFAIL",
                      "TestParseConfig"),
    "cargo test": ("running 12 tests\ntest parser::tests::rejects_tabs ... FAILED\n\n"
                   "failures:\n    parser::tests::rejects_tabs\n\n"
                   "test result: FAILED. 11 passed; 1 failed; 0 ignored",
                   "parser::tests::rejects_tabs"),
    "./gradlew test": ("> Task :app:test\n\nInvoiceServiceTest > computesVat() FAILED\n"
                       "    org.opentest4j.AssertionFailedError at InvoiceServiceTest.kt:31\n\n"
                       "12 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.",
                       "InvoiceServiceTest.computesVat"),
    "python manage.py test booking": (
        "FAIL: test_end_before_start (booking.tests.test_forms.BookingFormTests)\n"
        "AssertionError: True is not false\n\nRan 7 tests in 0.031s\n\nFAILED (failures=1)",
        "test_end_before_start"),
    "pnpm vitest run": (" ❯ src/components/Cart.test.tsx (3 tests | 1 failed) 20ms\n"
                        "   × Cart > applies the coupon once 8ms\n"
                        "     → expected 90 to be 80\n\n Tests  1 failed | 6 passed (7)",
                        "Cart > applies the coupon once"),
    "pnpm exec playwright test e2e/checkout.spec.ts": (
        "Running 6 tests using 3 workers\n  ✘  3 [chromium] › e2e/checkout.spec.ts:41:5 › "
        "checkout › pays with saved card (12.1s)\n  1) [chromium] › e2e/checkout.spec.ts:41:5"
        " › checkout › pays with saved card\n    Error: Timed out 5000ms\n  1 failed\n"
        "  5 passed (21.4s)", "checkout › pays with saved card"),
    "ctest --test-dir build -R mmap --output-on-failure": (
        "Test project /home/kit/tessel/build\n    Start 31: mmap_file.closes_fd_on_error\n"
        "2/2 Test #31: mmap_file.closes_fd_on_error .....***Failed    0.01 sec\n"
        "50% tests passed, 1 tests failed out of 2\n\nThe following tests FAILED:\n"
        "\t 31 - mmap_file.closes_fd_on_error (Failed)\nErrors while running CTest",
        "mmap_file.closes_fd_on_error"),
    "mix test test/paybox/ledger_test.exs:71": (
        "Running ExUnit with seed: 1203, max_cases: 4\n\n  1) test ledger stays balanced "
        "after partial refund (Paybox.LedgerTest)\n     test/paybox/ledger_test.exs:71\n"
        "     Assertion with == failed\n\nFinished in 0.1 seconds\n1 test, 1 failure",
        "ledger stays balanced after partial refund"),
    # No test failed: a checker's or compiler's first diagnostic says where.
    "uv run ruff check .": (
        "ledgerly/notifications/emails.py:3:8: F401 [*] `os` imported but unused\n  |\n"
        "3 | import os\n  |        ^^ F401\n\nFound 1 error.",
        "ledgerly/notifications/emails.py:3:8"),
    "cmake --build build -j2": (
        "[ 41%] Building CXX object src/CMakeFiles/tessel_io.dir/io/mmap_file.cpp.o\n"
        "/home/kit/tessel/src/io/mmap_file.cpp:64:12: error: no matching function for call\n"
        "make[2]: *** [src/CMakeFiles/tessel_io.dir/build.make:90] Error 1\n"
        "gmake: *** [Makefile:146: all] Error 2", "mmap_file.cpp:64:12"),
    "mix credo --strict": (
        "Checking 97 source files ...\n\n  Software Design\n┃\n┃ [D] ↘ Nested modules could "
        "be aliased.\n┃       lib/paybox/workers/refund_worker.ex:31:9 #(Paybox.Workers)\n\n"
        "312 mods/funs, found 1 software design suggestion.",
        "lib/paybox/workers/refund_worker.ex:31:9"),
    "cargo clippy --all-targets -- -D warnings": (
        "    Checking sift v0.4.0 (/home/dana/src/sift)\nerror: avoid using `collect()` when "
        "not needed\n  --> src/output/table.rs:57:10\n   |\n57 |         .collect::<Vec<_>>"
        "();\n   |          ^^^^^^^\n\nerror: could not compile `sift` (bin \"sift\") due to "
        "1 previous error", "src/output/table.rs:57:10"),
    "pnpm exec tsc --noEmit": (
        "src/lib/prix.ts(15,3): error TS2322: Type 'string' is not assignable to type "
        "'number'.\n\nFound 1 error in src/lib/prix.ts:15", "src/lib/prix.ts:15:3"),
    # A test file's failure names its failing tests.
    "uv run pytest tests/api/test_invoice_views.py -x -q": (
        "....F\n=== FAILURES ===\n___ TestInvoiceRetry.test_retry_requires_signature ___\n"
        "E   assert 200 == 401\n=== short test summary info ===\nFAILED tests/api/"
        "test_invoice_views.py::TestInvoiceRetry::test_retry_requires_signature - assert "
        "200 == 401\n1 failed, 4 passed in 2.02s",
        "TestInvoiceRetry::test_retry_requires_signature"),
}


@pytest.mark.parametrize("command", sorted(RUNNER_FAILURES))
def test_an_open_failure_names_the_test_its_runner_says_failed(command: str) -> None:
    output, name = RUNNER_FAILURES[command]
    session = Session()
    session.call(command, output, ok=False)
    [line] = session.section("Erreurs")
    assert command in line and name in line
