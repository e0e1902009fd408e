"""Shapes a red team found in held-out sessions, written as operators and bees write them:
a correction that says "No, do X", a reversal that names only the new choice, an
operator's "Fine, X it is." undone later, a rule replaced by a newer one without
withdrawing words, an acknowledgement that names a PR, "Replacing X with Y"."""

from __future__ import annotations

import pytest

from horizon.core.choices import chosen_words, corrects
from horizon.core.recit import Quote
from horizon.core.withdrawals import withdrawn
from tests.unit.test_recit_sections import Session

DECISIONS, PAROLES, WORK = "Décisions", "Paroles de l'apicultrice", "Travail en cours"


def bee_decides(said: str) -> bool:
    """Whether the bee's words alone put a line in Décisions."""
    session = Session()
    session.bee("Go on.", said)
    return bool(session.section(DECISIONS))


def only_the_reversal_stands(bee: str, operator: str, language: str = "en") -> list[str]:
    """Décisions after the bee's choice and the operator's words, which must be its only
    line."""
    session = Session(language)
    session.bee("Which?", bee)
    reversal = session.operator(operator, "OK.")
    decisions = session.section(DECISIONS)
    assert [line.split()[0] for line in decisions] == [f"#{reversal}"], decisions
    return decisions


@pytest.mark.parametrize(("bee", "correction", "new", "old"), [
    ("Decision: we'll do a blue/green node group swap rather than rolling the group.",
     "No, do the in-place rolling update with max_unavailable_percentage=25. We don't "
     "have the headroom.", "in-place", "blue/green"),
    ("For the partition writes we'll go with OVERWRITE, the daily job is idempotent.",
     "No — use MERGE instead of OVERWRITE.", "MERGE", "go with OVERWRITE"),
    ("Pour l'écriture des partitions, on part sur OVERWRITE : le job est idempotent.",
     "Non — utilise MERGE au lieu de OVERWRITE, on a des corrections tardives.", "MERGE",
     "on part sur OVERWRITE"),
    ("I'll use Celery for the background jobs.",
     "Nope, keep RQ. Celery is too heavy for this.", "RQ", "Celery for"),
    # The choice said in a few words after a correcting word, then what it undoes.
    ("Decision: we'll use Zustand for the checkout state; the stepper needs it across "
     "three components.", "Actually: useReducer in a context, not Zustand.", "useReducer",
     "use Zustand"),
    ("Décision : on garde pandas pour les agrégations, c'est ce que l'équipe connaît.",
     "Non, polars en mode lazy, pas pandas.", "polars", "garde pandas"),
    # A choice named in backquotes is still what the decision is about.
    ("Going with `chrono` for date parsing, it's what everyone uses.",
     "Hmm, no — use jiff instead of chrono, I'm trying to get off chrono everywhere.",
     "jiff", "chrono` for"),
    ("Decision: PDFs render with Grover, headless Chrome gives us the best CSS.",
     "Scratch Grover, there's no Chrome in our containers. Stick with wicked_pdf.",
     "wicked_pdf", "render with Grover"),
    # What is set aside said first, or in another sentence; a lead that goes back on it.
    ("Pour la synchro, j'ai choisi WorkManager avec une contrainte réseau : ça survit aux "
     "redémarrages.", "Non, pas WorkManager : on fait la synchro au premier plan avec un "
     "simple repeatOnLifecycle, c'est suffisant.", "repeatOnLifecycle", "choisi WorkManager"),
    ("On part sur WorkManager pour la synchro en arrière-plan.",
     "Finalement non, je ne veux pas de WorkManager ici. Utilise repeatOnLifecycle dans "
     "l'écran.", "repeatOnLifecycle", "part sur WorkManager"),
    ("Décision : kotlinx.serialization pour le JSON du partage.",
     "Je reviens là-dessus : garde Moshi, pas kotlinx.serialization, pour rester cohérent.",
     "Moshi", "Décision : kotlinx"),
    ("For the config file I'll go with TOML, loaded through the directories crate.",
     "Actually skip the config file entirely — env vars only. Less to maintain.",
     "env vars", "go with TOML"),
])
def test_a_correction_said_as_an_instruction_replaces_the_decision(
        bee: str, correction: str, new: str, old: str) -> None:
    session = Session()
    session.bee("Pick the approach.", bee)
    corrected = session.operator(correction, "Fair enough, switching.")
    decisions = session.section(DECISIONS)
    assert decisions and decisions[0].startswith(f"#{corrected}") and new in decisions[0]
    assert not any(old in line for line in decisions), decisions


@pytest.mark.parametrize("reply", [
    "Makes sense, moving the cart slice into RTK.",
    "Makes sense — moving the cart slice into the existing RTK store.",
])
def test_a_reversal_naming_only_the_new_choice_undoes_the_decision_on_its_subject(
        reply: str) -> None:
    session = Session()
    session.bee("State for the cart?", "Going with Zustand for the cart state instead of "
                "React context.")
    dates = session.bee("Dates?", "Decision: date-fns over dayjs for formatting delivery "
                        "windows.")
    reversal = session.operator("actually let's go with Redux Toolkit, the rest of the app "
                                "already uses it", reply)
    decisions = session.section(DECISIONS)
    assert [line.split()[0] for line in decisions] == [f"#{reversal}", f"#{dates}"], decisions


def test_the_operators_own_choice_goes_when_the_operator_reverses_it() -> None:
    session = Session()
    session.bee("Addon conflicts?", 'I\'ll set resolve_conflicts_on_update = "OVERWRITE" so '
                "the addon upgrade wins over the drifted config.")
    session.operator("Fine, OVERWRITE it is.", "Setting it now.")
    reversal = session.operator("Actually, switch the addon conflicts to PRESERVE — "
                                "OVERWRITE wiped the custom env.", "Switching to PRESERVE.")
    decisions = session.section(DECISIONS)
    assert [line.split()[0] for line in decisions] == [f"#{reversal}"], decisions


def test_replacing_a_library_with_another_is_a_decision() -> None:
    session = Session()
    session.bee("Retries?", "I'll use exponential backoff with jitter from "
                "cenkalti/backoff for the redelivery loop.")
    replaced = session.bee("Any issue?", "Replacing cenkalti/backoff with a hand-rolled "
                           "retry loop — the library's context handling hides the cause.")
    assert [line.split()[0] for line in session.section(DECISIONS)] == [f"#{replaced}"]


def test_a_rule_that_sets_aside_what_an_older_rule_chose_replaces_it() -> None:
    session = Session()
    session.operator("Always use pnpm, not npm. The lockfile is pnpm-lock.yaml now.",
                     "Switching all commands to pnpm.")
    newer = session.operator("We're moving the repo to bun. From now on use bun for "
                             "installs and scripts, not pnpm.", "Understood, bun from here on.")
    recit = session.recit()
    standing = [quote.seq for quote in recit.paroles if quote.seq not in withdrawn(recit.paroles)]
    assert standing == [newer]
    assert not any("pnpm." in line and "bun" not in line for line in session.section(DECISIONS))


@pytest.mark.parametrize(("older", "newer", "replaces"), [
    ("Always use pnpm, not npm.", "From now on use bun, not pnpm.", True),
    ("Use ruff for linting.", "Use ruff, not flake8, and black for formatting.", False),
    ("Never push to main.", "Push to the feature branch, not main.", False),
    ("Toujours utiliser pytest.", "Désormais utilise unittest, pas pytest.", True),
])
def test_only_a_rule_that_drops_the_older_rules_choice_replaces_it(
        older: str, newer: str, replaces: bool) -> None:
    quotes = [Quote(1, older), Quote(2, newer)]
    assert (1 in withdrawn(quotes)) is replaces


def test_a_replacing_rule_withdraws_the_rule_it_names_not_one_sharing_a_stem() -> None:
    quotes = [Quote(1, "Quand tu changes une option, mets à jour docs/api.md."),
              Quote(2, "Écris à la main l'entrée de CHANGELOG.md pour chaque ticket fermé."),
              Quote(3, "Ceci remplace ma règle sur CHANGELOG.md : ne l'édite plus à la main.")]
    assert withdrawn(quotes) == {2}


@pytest.mark.parametrize(("older", "newer", "replaces"), [
    ("Pas de commit sans swiftlint au vert.",
     "Je préfère qu'on reste sur GRDB plutôt que SwiftData.", False),
    ("Always run the lint before a commit.",
     "Use `cargo nextest run` instead of the lints.", True),
    ("Keep each migration under 200 lines.",
     "From now on, one file per change rather than migrations.", True),
])
def test_a_replaced_name_is_the_same_word_not_the_same_five_letters(
        older: str, newer: str, replaces: bool) -> None:
    assert (1 in withdrawn([Quote(1, older), Quote(2, newer)])) is replaces


def test_an_acknowledgement_naming_a_pr_is_no_work_in_flight() -> None:
    session = Session()
    session.operator("Applied #594, thanks", "Great.")
    session.operator("Appliqué #88, merci", "Merci.")
    assert session.section(WORK) == []


@pytest.mark.parametrize(("words", "decides", "chooses"), [
    ("No, do the in-place rolling update.", True, {"in-pl"}),
    ("No — use MERGE instead of OVERWRITE.", True, {"merge"}),
    ("From now on use bun for installs, not pnpm.", True, {"bun"}),
    ("Use ruff for linting.", False, {"ruff"}),
    ("No, keep going.", False, set()),
    ("Never push to main.", False, set()),
])
def test_what_corrects_a_choice(words: str, decides: bool, chooses: set[str]) -> None:
    assert corrects(words) is decides
    assert chosen_words(words) == chooses


@pytest.mark.parametrize(("tool", "command", "output", "state"), [
    ("mcp__linear__get_issue", "ENG-4111", "ENG-4111 · Upgrade EKS\nStatus: In Progress\n"
     "- Maya Chen moved ENG-4111 from Done to In Progress", "open"),
    ("Bash", "linear issue view ENG-4111", "ENG-4111 Upgrade EKS\n\nMaya moved ENG-4111 "
     "from Done to In Progress\n", "open"),
    ("Bash", "gh issue view 12", "title: flaky test\n#12 moved from In Progress to Done",
     "closed"),
    # A status line alone may be stale: a ticket looked at is not taken back.
    ("Bash", "bd show ENG-4111", "ENG-4111: Upgrade EKS\nStatus: in_progress", None),
    # Not a view of one ticket: an output naming tickets touches none of them.
    ("Bash", "git log --oneline", "abc123 ENG-4111 moved from Done to In Progress", None),
    ("Bash", "linear issue list", "ENG-4111 In Progress\nENG-4102 Done", None),
])
def test_a_tracker_showing_one_ticket_reports_its_state(
        tool: str, command: str, output: str, state: str | None) -> None:
    session = Session()
    if state == "closed":
        session.bee("Take #12", "Starting on #12 now.")
        assert "#12" in " ".join(session.section(WORK))
    else:
        session.bee("Ship it", "ENG-4111 is done: the control plane is on 1.29.")
    session.call(command, output, tool=tool, ok=True)
    work = " ".join(session.section(WORK))
    named = "ENG-4111" if "ENG" in command else "#12"
    if state == "open":
        assert named in work
    else:
        assert named not in work


@pytest.mark.parametrize(("words", "work"), [
    ("Use Tailwind classes for styling, no CSS modules.", False),
    ("No — use MERGE instead of OVERWRITE.", False),
    ("Use the staging cluster for ENG-4146, not prod.", True),  # a ticket: work to do
    ("Fix the login bug in auth.py.", True),
])
def test_a_convention_is_no_work_in_flight(words: str, work: bool) -> None:
    session = Session()
    said = session.operator(words, "OK.")
    assert any(line.startswith(f"#{said}") for line in session.section(WORK)) is work


def test_a_choice_of_what_an_older_decision_set_aside_supersedes_it() -> None:
    session = Session()
    session.bee("", "For the PDF I'll use Prawn directly rather than the wicked_pdf HTML "
                    "route; it gives us real text wrapping.")
    session.operator("Prawn is a lot of layout code. Can we stay on the HTML route?")
    session.bee("", "OK, wicked_pdf it is; I'll fix the overflow with CSS word-break.")
    decisions = session.section(DECISIONS)
    assert any("wicked_pdf it is" in line for line in decisions), decisions
    assert not any("use Prawn" in line for line in decisions), decisions


@pytest.mark.parametrize(("said", "decides"), [
    ("I'll store the discount as discount_bps rather than a decimal, integer math "
     "everywhere.", True),
    ("We're going to key the cache by tenant instead of by user.", True),
    # What the bee does now, rather than something else, chooses nothing.
    ("I'll rerun the suite rather than guess at the cause.", False),
    ("I'll check the logs instead of restarting the pod.", False),
])
def test_a_bees_choice_said_as_one_thing_rather_than_another(said: str, decides: bool) -> None:
    assert bee_decides(said) is decides


@pytest.mark.parametrize(("older", "turned_down", "replaced_by"), [
    ("Decision: the pricing rules go in a PORO, PricingCalculator, under app/services.",
     "I don't want another PORO for this. Put it on the Order model as a concern.",
     "as a concern"),
    ("For the config file I'll go with TOML, loaded through the directories crate.",
     "Let's not do a config file at all. Env vars are enough.", "Env vars"),
    ("On part sur Redis pour le cache des sessions.",
     "Je ne veux pas de Redis ici. Garde les sessions en base.", "en base"),
])
def test_a_choice_the_operator_turns_down_leaves_with_what_replaces_it(
        older: str, turned_down: str, replaced_by: str) -> None:
    assert replaced_by in only_the_reversal_stands(older, turned_down)[0]


@pytest.mark.parametrize(("said", "decides"), [
    # How the bee will build something, with a piece of code it names.
    ("I'll implement the retries with `autoretry_for=(GatewayTimeout,)` and "
     "`retry_backoff=True` on the task.", True),
    ("I'm going to put the signature check in a DRF permission class, "
     "`SignedWebhookPermission`, so it only applies to the webhook views.", True),
    ("I'll swap the lookup table to `absl::flat_hash_map`: node allocations dominate.", True),
    ("Je vais faire le remboursement dans une transaction `Ecto.Multi` pour que tout passe "
     "ou rien.", True),
    ("J'ajoute un `Ecto.Enum` `:refund_reason` plutôt qu'un champ texte libre.", True),
    # Where it will work, a file or a folder: no choice.
    ("I'll add a test in `tests/test_wind.py` for the gust.", False),
    ("I'll run the tests in `tests/api` again.", False),
    ("Je vais lancer les tests dans `test/paybox`.", False),
    # An assent with no object chooses nothing; a ticket's state is no choice.
    ("OK, going with that.", False),
    ("OK, dropping that.", False),
    ("Reopened bd-42, moved back to In Progress.", False),
])
def test_a_bees_choice_of_code_to_build_with(said: str, decides: bool) -> None:
    assert bee_decides(said) is decides


@pytest.mark.parametrize(("bee", "operator", "new"), [
    ("I'll implement the retries with `autoretry_for=(GatewayTimeout,)` on the task.",
     "no, don't use autoretry_for. do explicit self.retry(countdown=...) with our own "
     "1/3/7 day schedule", "self.retry"),
    ("I'm going to put the signature check in a DRF permission class, "
     "`SignedWebhookPermission`.", "hmm no, move the signature check into a middleware, "
     "WebhookSignatureMiddleware, so every webhook route gets it", "WebhookSignatureMiddleware"),
    ("Decision: we'll use httpx for the outbound gateway calls.",
     "revert to requests.Session, we don't want httpx in the lockfile right now",
     "requests.Session"),
])
def test_the_operator_sends_the_bee_back_or_elsewhere(bee: str, operator: str,
                                                      new: str) -> None:
    assert new in only_the_reversal_stands(bee, operator)[0]


def test_words_that_take_a_rule_back_decide_nothing() -> None:
    session = Session()
    session.operator('before you say "done", run make lint. every time.', "Will do.")
    session.operator("drop the make-lint-before-done thing, its slowing us down and CI "
                     "covers it", "Dropped.")
    assert session.section(DECISIONS) == []


def test_what_to_build_it_as_after_what_not_to_is_the_operators_decision() -> None:
    session = Session()
    session.bee("Packaging?", "Decision: the codec goes header-only, everything in utf16.hpp.")
    reversal = session.operator("not header-only. build it as a shared lib behind "
                                "TESSEL_CODEC_SHARED=ON, compile times matter more", "OK.")
    decisions = session.section(DECISIONS)
    assert [line.split()[0] for line in decisions] == [f"#{reversal}"], decisions
    assert "TESSEL_CODEC_SHARED" in decisions[0]
    session.operator("build it as fast as you can", "On it.")
    assert len(session.section(DECISIONS)) == 1


@pytest.mark.parametrize(("said", "decides"), [
    ("Je reviens sur ce choix : on garde Moshi.", True),
    ("On revient sur Redis pour le cache.", True),
    # Coming back to a failure, a file, a point: no choice undone.
    ("Je reviens sur l'échec.", False),
    ("Je reviens sur le test qui casse.", False),
])
def test_coming_back_to_something_reverses_only_a_choice(said: str, decides: bool) -> None:
    session = Session("fr")
    session.bee("Go.", "Je vais faire le remboursement dans une transaction `Ecto.Multi`.")
    session.bee("Go.", said)
    decisions = session.section(DECISIONS)
    assert any(said[:20] in line for line in decisions) is decides
    if not decides:  # nor does it undo the choice before it
        assert any("Ecto.Multi" in line for line in decisions), decisions


@pytest.mark.parametrize(("words", "decides"), [
    # Where to put something is a task said alone, a choice beside what it sets aside.
    ("put that in gitlab as a bug", False),
    ("move the hardcoded cidrs into variables", False),
    ("Mets un indicateur de synchro dans la barre de navigation.", False),
    ("Prends un ticket dans Linear pendant que je suis en réunion.", False),
    ("Scrap Redis for idempotency keys. Put them in Postgres, an idempotency_keys table.",
     True),
    # A choice said as an instruction, a typo'd "let's"; a rule stays in Paroles alone.
    ("Store the idempotency keys in Redis with a 24h TTL.", True),
    ("Logging: go with zerolog everywhere in the new code.", False),
    ("for molecule lets go with the docker driver", True),
])
def test_what_the_operator_chooses_and_what_it_only_asks(words: str, decides: bool) -> None:
    session = Session()
    session.operator(words, "OK.")
    assert bool(session.section(DECISIONS)) is decides


def test_a_choice_set_aside_then_put_elsewhere_replaces_it() -> None:
    session = Session()
    session.operator("Store the idempotency keys in Redis with a 24h TTL.", "OK.")
    moved = session.operator("Scrap Redis for idempotency keys. Put them in Postgres, an "
                             "idempotency_keys table.", "Moving them.")
    assert [line.split()[0] for line in session.section(DECISIONS)] == [f"#{moved}"]


def test_undoing_a_part_names_what_is_undone_not_the_word_part() -> None:
    session = Session("fr")
    session.bee("Partition ?", "Décision : on garde MERGE pour le rechargement d'une partition.")
    session.operator("Pas Parquet : Avro, stp.", "Soit, je défais la partie Parquet.")
    assert any("MERGE" in line for line in session.section(DECISIONS))


@pytest.mark.parametrize(("said", "decides"), [
    # A version pinned, a name given.
    ("I'm pinning the AWS provider to \"~> 5.40\" in versions.tf.", True),
    ("5.40 wont cut it. bump the pin to ~> 5.60", True),
    ("call the state bucket acme-tfstate-eu", True),
    ("Bump the version to 2.1 when you finish.", False),
    ("Let me name the file properly.", False),
    # What the bee builds with, by a name no plain word has.
    ("I'll answer throttled requests with 429 Too Many Requests plus Retry-After.", True),
    ("Je mets le cache des miniatures dans un NSCache, limité à 50 Mo.", True),
    ("On passe l'état des vues par @Observable, fini les ObservableObject.", True),
    ("Pour l'état, on utilise la macro @Observable partout.", True),
    ("I'll reply on GitHub.", False),
    ("I'll put a breakpoint in HandleWebhook.", False),
    ("J'aimerais que tu commences par renommer CreditNote, avant tout le reste.", False),
    ("I'll add a variable in variables.tf.", False),
    # A plan that chooses; a plan that only says what comes next.
    ("Plan: use golang.org/x/time/rate, one rate.Limiter per API key in a sync.Map.", True),
    ("Plan: read the logs, then fix the test.", False),
])
def test_choices_said_by_pinning_naming_building_or_planning(said: str, decides: bool) -> None:
    assert bee_decides(said) is decides


@pytest.mark.parametrize(("said", "decides"), [
    # A choice of a named thing, said with its reason.
    ("I'll move the parsing to clap's derive API; the builder would be as long as what we "
     "have now.", True),
    ("I'm moving the CLI tests to insta snapshots; reviewing a diff beats reading "
     "assert_eq! on 40-line strings.", True),
    ("Partitioning the raw table on ingest_date — cheap backfills, one partition per run.",
     True),
    ("I'll partition raw_manifests by ingest_date so reprocessing a day is a single "
     "partition overwrite.", True),
    ("Going to use pendulum.parse for eta — stdlib strptime would need four format strings.",
     True),
    ("Je range les montants dans un BigDecimal — les flottants arrondissent mal.", True),
    # Work, a diagnosis, an action and its purpose, a choice without its reason.
    ("I'll run the tests again — the flaky one might pass.", False),
    ("I'll add a test for Parser — it covers the edge case.", False),
    ("I'll move the file to src/ now.", False),
    ("Using the Read tool on main.rs — to see the function.", False),
    ("The parser drops the last line of Cargo.toml; that is the bug.", False),
    ("Partitioning is slow here — the table has no index.", False),
    ("I'll move the handler to api.rs; again.", False),
])
def test_a_choice_said_with_its_reason(said: str, decides: bool) -> None:
    assert bee_decides(said) is decides


@pytest.mark.parametrize(("older", "newer", "new"), [
    ("Plan: use golang.org/x/time/rate, one rate.Limiter per API key.",
     "Not x/time/rate. We'll do our own sliding window counter instead.", "sliding window"),
    ("Je pars sur SwiftData pour la persistance des entrées.",
     "Je préfère qu'on reste sur GRDB plutôt que SwiftData.", "GRDB"),
    ("Conflits : on garde last-write-wins sur le champ updatedAt.",
     "Finalement non pour last-write-wins. On garde les deux versions et l'utilisateur "
     "choisit.", "deux versions"),
])
def test_the_operator_prefers_another_choice(older: str, newer: str, new: str) -> None:
    language = "fr" if "Je" in older or "Conflits" in older else "en"
    assert new in only_the_reversal_stands(older, newer, language)[0]


@pytest.mark.parametrize(("older", "newer", "language", "new"), [
    ("Je pars sur zustand pour le panier, c'est léger.",
     "non, pas zustand. un context React suffit largement pour un panier", "fr",
     "context React"),
    ("I'll parse dates with pendulum, its timezone handling is nicer.",
     "hmm wait, no pendulum — stdlib datetime is fine, one less dep", "en", "datetime"),
    ("I'll partition raw_manifests by ingest_date so reprocessing a day is a single "
     "partition overwrite.", "partition by voyage_date instead, thats what the analysts "
     "filter on", "en", "voyage_date"),
    ("Partitioning the raw table on ingest_date — cheap backfills, one partition per run.",
     "switch the partition column to voyage_date pls. nobody queries by ingest date", "en",
     "voyage_date"),
])
def test_a_choice_turned_down_alone_then_replaced_in_the_next_sentence(
        older: str, newer: str, language: str, new: str) -> None:
    assert new in only_the_reversal_stands(older, newer, language)[0]


@pytest.mark.parametrize("words", ["No, not now.", "nope, not that. use the other one",
                                   "no worries", "Look at the middleware instead.",
                                   "Regarde plutôt le store."])
def test_a_no_or_a_redirect_that_names_nothing_decides_nothing(words: str) -> None:
    session = Session()
    session.operator(words, "OK.")
    assert session.section(DECISIONS) == []
