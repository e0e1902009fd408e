"""The words of the synthetic session of bench/memory.py, in French and in English.

The operator and the bee speak the session's language; tools print what tools print
(pytest, git and the shell speak English in both). Placeholders are filled by
memory_session.py: {ticket}, {title}, {src}, {test}, {doc}, {symbol}, {step}, {path},
{reason}, {count}.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Area:
    """A part of the bee's repository: the files a ticket there reads, writes and tests."""

    name: str
    sources: tuple[str, ...]
    tests: tuple[str, ...]
    doc: str
    symbols: tuple[str, ...]
    titles: dict[str, tuple[str, ...]]  # by language


AREAS = (
    Area("billing", ("src/app/billing/vat.py", "src/app/billing/rounding.py",
                     "src/app/billing/invoice.py"),
         ("tests/billing/test_vat.py", "tests/billing/test_invoice.py"), "docs/billing.md",
         ("compute_vat", "round_line", "Invoice.total"),
         {"fr": ("la TVA est mal arrondie sur les factures de plus de 100 €",
                 "le total d'une facture avec remise est faux d'un centime",
                 "les avoirs n'apparaissent pas dans le récapitulatif mensuel"),
          "en": ("VAT is rounded wrong on invoices above €100",
                 "an invoice total with a discount is off by one cent",
                 "credit notes are missing from the monthly summary")}),
    Area("pdf", ("src/app/pdf/render.py", "src/app/pdf/layout.py"),
         ("tests/pdf/test_render.py",), "docs/pdf.md",
         ("render_invoice_pdf", "PdfLayout.wrap_address"),
         {"fr": ("le PDF de facture coupe les adresses longues",
                 "le logo n'apparaît plus dans les PDF",
                 "les PDF en anglais affichent des dates au format français"),
          "en": ("the invoice PDF truncates long addresses",
                 "the logo no longer shows in PDFs",
                 "English PDFs print dates in the French format")}),
    Area("api", ("src/app/api/routes.py", "src/app/api/schemas.py"),
         ("tests/api/test_routes.py",), "docs/api.md",
         ("list_invoices", "InvoiceSchema", "paginate"),
         {"fr": ("l'API renvoie 500 quand on filtre par date",
                 "la pagination de /invoices saute des éléments",
                 "il manque un endpoint pour télécharger un avoir"),
          "en": ("the API returns 500 when filtering by date",
                 "pagination of /invoices skips items",
                 "there is no endpoint to download a credit note")}),
    Area("auth", ("src/app/auth/tokens.py", "src/app/auth/permissions.py"),
         ("tests/auth/test_tokens.py", "tests/auth/test_permissions.py"), "docs/security.md",
         ("refresh_token", "can_view_invoice"),
         {"fr": ("les jetons expirent une heure trop tôt en hiver",
                 "un comptable voit les factures d'un autre client",
                 "la déconnexion ne révoque pas le jeton de rafraîchissement"),
          "en": ("tokens expire one hour early in winter",
                 "an accountant can see another customer's invoices",
                 "logging out does not revoke the refresh token")}),
    Area("export", ("src/app/export/csv_export.py", "src/app/export/formats.py"),
         ("tests/export/test_csv_export.py",), "docs/export.md",
         ("export_invoices_csv", "CsvDialect"),
         {"fr": ("l'export CSV double les lignes des factures partielles",
                 "les montants exportés ont un point au lieu d'une virgule",
                 "l'export échoue au-delà de dix mille factures"),
          "en": ("the CSV export duplicates the lines of partial invoices",
                 "exported amounts use a comma instead of a point",
                 "the export breaks beyond ten thousand invoices")}),
    Area("mailer", ("src/app/notify/mailer.py", "src/app/notify/templates.py"),
         ("tests/notify/test_mailer.py",), "docs/notifications.md",
         ("send_invoice_mail", "render_reminder"),
         {"fr": ("les relances partent deux fois le même jour",
                 "l'objet du courriel de relance est vide",
                 "les pièces jointes dépassent la limite du serveur"),
          "en": ("reminders are sent twice on the same day",
                 "the reminder email has an empty subject",
                 "attachments exceed the server's limit")}),
    Area("frontend", ("frontend/src/components/InvoiceTable.tsx", "frontend/src/api/client.ts"),
         ("frontend/src/components/InvoiceTable.test.tsx",), "docs/frontend.md",
         ("InvoiceTable", "fetchInvoices"),
         {"fr": ("le tableau des factures ne trie pas par montant",
                 "le filtre par client se vide au rechargement",
                 "les montants négatifs s'affichent sans signe"),
          "en": ("the invoice table does not sort by amount",
                 "the customer filter empties on reload",
                 "negative amounts show without their sign")}),
    Area("models", ("src/app/models.py", "src/app/db/queries.py"),
         ("tests/test_models.py",), "docs/data-model.md",
         ("Customer", "due_invoices"),
         {"fr": ("la requête des factures échues est lente",
                 "un client supprimé garde des factures orphelines",
                 "le champ siret accepte des lettres"),
          "en": ("the overdue invoices query is slow",
                 "a deleted customer leaves orphan invoices",
                 "the siret field accepts letters")}),
)

# Failures no later step fixes: a path and a tool the session never uses again.
# (tool, path, command or None for a file tool, what went wrong, tool output)
OPEN_FAILURES = (
    ("bash", "tests/integration/test_s3_sync.py", "pytest tests/integration/test_s3_sync.py",
     "s3", "botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint "
     "URL: \"https://s3.eu-west-3.amazonaws.com/ruche-exports\""),
    ("bash", "tests/e2e/test_checkout_flow.py", "pytest tests/e2e/test_checkout_flow.py",
     "e2e", "playwright._impl._errors.TimeoutError: Timeout 30000ms exceeded while waiting "
     "for selector \"#pay-button\""),
    ("bash", "scripts/deploy_staging.sh", "bash scripts/deploy_staging.sh --dry-run",
     "ssh", "deploy@staging.ruche.internal: Permission denied (publickey). fatal: could not "
     "read from remote repository"),
    ("read_file", "src/app/legacy/old_export.py", None, "missing",
     "Error: FileNotFoundError: [Errno 2] No such file or directory: "
     "'src/app/legacy/old_export.py'"),
    ("bash", "tests/perf/test_bulk_invoices.py", "pytest tests/perf/test_bulk_invoices.py",
     "perf", "FAILED tests/perf/test_bulk_invoices.py::test_ten_thousand_invoices - "
     "AssertionError: took 48.2s, budget 20s"),
    ("write_file", "config/production.toml", None, "denied",
     "Error: PermissionError: [Errno 13] Permission denied: 'config/production.toml'"),
    ("bash", "src/app/db/migrations/0042_add_vat_rate.py",
     "python -m app.db.migrate src/app/db/migrations/0042_add_vat_rate.py", "migration",
     "sqlalchemy.exc.OperationalError: (psycopg.errors.LockNotAvailable) could not obtain "
     "lock on relation \"invoices\""),
    ("bash", "frontend/src/legacy/ChartWidget.tsx",
     "npx tsc --noEmit frontend/src/legacy/ChartWidget.tsx", "types",
     "frontend/src/legacy/ChartWidget.tsx(88,17): error TS2345: Argument of type "
     "'string | undefined' is not assignable to parameter of type 'string'."),
    ("bash", "tests/notify/test_smtp_relay.py", "pytest tests/notify/test_smtp_relay.py",
     "smtp", "smtplib.SMTPServerDisconnected: Connection unexpectedly closed by "
     "smtp.relay.ruche.internal"),
    ("bash", "docs/api/openapi.yaml", "npx @redocly/cli lint docs/api/openapi.yaml", "lint",
     "docs/api/openapi.yaml:212:7 error  no-invalid-media-type-examples  Example value must "
     "conform to the schema: amount must be string."),
    ("bash", "tests/integration/test_payment_gateway.py",
     "pytest tests/integration/test_payment_gateway.py", "gateway",
     "httpx.HTTPStatusError: Server error '502 Bad Gateway' for url "
     "'https://sandbox.pay.example/v2/charges'"),
    ("bash", "scripts/backup_db.sh", "bash scripts/backup_db.sh",
     "backup", "pg_dump: error: connection to server at \"db.internal\" (10.0.3.4), port 5432 "
     "failed: Connection refused"),
)


@dataclass(frozen=True)
class Phrases:
    """What the operator, the queen and the bee say, in one language."""

    mission: str
    rules: tuple[str, ...]
    rule_acks: tuple[str, ...]
    repeat_acks: tuple[str, ...]
    assign: tuple[str, ...]  # the operator hands a ticket
    assign_answer: str
    pickup_question: tuple[str, ...]  # the queen asks which ticket comes next
    pickup_answer: str
    reading: tuple[str, ...]  # the bee's note after reading
    plan: str
    failing: str
    failing_again: str
    passing: str
    open_failure: str
    open_reasons: dict[str, str]
    status_question: tuple[str, ...]
    status_answer: str
    decisions_operator: tuple[tuple[str, str], ...]
    decisions_queen: tuple[tuple[str, str], ...]
    request: tuple[str, ...]  # the operator asks for something after the ticket
    request_answer: str
    close_bee: str
    close_operator: tuple[str, ...]
    close_operator_answer: str
    steps: tuple[str, ...]  # next steps, as the bee states them
    next_label: str  # "Prochaine étape : " or "Next step: "
    note_questions: tuple[str, ...]
    commit: str


FR = Phrases(
    mission=("Maintenir le back-office de facturation de la Ruche (src/app, tests, docs) : "
             "corriger les tickets du backlog sans casser la production."),
    rules=(
        "Ne jamais pousser sur main sans relecture.",
        "Toujours lancer la suite de tests complète avant un commit.",
        "Pas de nouvelle dépendance sans mon accord.",
        "Les messages de commit commencent par le numéro du ticket.",
        "Ne touche jamais aux migrations déjà appliquées en production.",
        "Réponds-moi en français, les identifiants restent en anglais.",
        "Aucun secret dans le dépôt : les clés passent par les variables d'environnement.",
        "Chaque correctif de bug arrive avec un test qui le reproduit.",
        "Pas de force-push sur une branche partagée.",
        "Les montants sont des Decimal, jamais des float.",
        "Ne supprime aucun fichier de docs/ sans me demander.",
        "Garde les fonctions sous cinquante lignes.",
        "Signale-moi tout test instable au lieu de le relancer en boucle.",
        "Les dates sont stockées en UTC et affichées dans le fuseau du client.",
        "N'envoie jamais de vrai courriel depuis les tests.",
        "Mets à jour le CHANGELOG.md à chaque ticket fermé.",
        "Pas de print() dans le code : utilise le logger.",
        "Demande-moi avant de toucher à la configuration de production.",
        "Les requêtes SQL passent par l'ORM, pas de SQL brut.",
        "Une pull request ne mélange pas refactorisation et correctif.",
        "Découpe les fichiers de plus de quatre cents lignes.",
        "Les branches se nomment ticket/description-courte.",
        "Ne désactive jamais un test pour faire passer la CI.",
        "Documente chaque nouvel endpoint dans docs/api.md.",
        "Arrête-toi et demande-moi si une tâche dure plus de deux heures.",
    ),
    rule_acks=("Compris, je m'y tiens.", "Noté, je l'applique dès maintenant.",
               "D'accord, c'est noté pour la suite.",
               "Entendu. Je vérifie que ce que j'ai fait jusqu'ici le respecte."),
    repeat_acks=("Oui, c'est noté, je m'y tiens.", "Bien reçu, je continue à l'appliquer.",
                 "Toujours noté.", "Oui, je n'ai pas dérogé à cette règle."),
    assign=("Prends {ticket} : {title}.", "Nouveau ticket pour toi, {ticket} : {title}.",
            "Occupe-toi de {ticket} en priorité : {title}."),
    assign_answer=("D'accord, je prends {ticket}. Je commence par lire {src} et {test}. "
                   "{next}relire {src} et reproduire le problème dans {test}."),
    pickup_question=("Le backlog t'attend : quel ticket prends-tu ?",
                     "Ticket suivant ?", "Qu'est-ce que tu prends maintenant ?"),
    pickup_answer=("Je prends {ticket} ({title}). Je l'ouvre et je commence par {src}. "
                   "{next}lire {src} et {test}."),
    reading=("{src} : {symbol} est appelé depuis trois endroits ; le cas de {ticket} passe "
             "par la branche sans test.",
             "J'ai lu {src}. {symbol} suppose une entrée déjà validée, ce qui n'est pas le "
             "cas ici.",
             "Rien d'anormal dans {src} ; la cause est probablement en amont de {symbol}."),
    plan=("Analyse de {ticket} : la cause est dans {symbol} ({src}). Plan : écrire un test "
          "qui reproduit le problème dans {test}, corriger {symbol}, relancer la suite. "
          "{next}{step}."),
    failing=("Le test échoue comme prévu : {symbol} renvoie une valeur fausse. Je corrige "
             "{src}. {next}relancer {test} après la correction."),
    failing_again=("Encore un échec dans {test} : ma correction de {symbol} ne couvre pas "
                   "le cas limite. Je reprends {src}. {next}relancer {test}."),
    passing=("{test} passe maintenant ({count} tests verts). {next}{step}."),
    open_failure=("{path} échoue pour une raison extérieure à {ticket} ({reason}). Je ne "
                  "peux pas le corriger d'ici : je le laisse ouvert et je continue {ticket}."),
    open_reasons={"s3": "le point d'accès S3 est injoignable depuis le bac à sable",
                  "e2e": "le navigateur de test dépasse son délai",
                  "ssh": "la clé de déploiement est refusée",
                  "missing": "le fichier a disparu du dépôt",
                  "perf": "le budget de temps est dépassé sur cette machine",
                  "denied": "je n'ai pas le droit d'écrire ce fichier",
                  "migration": "la base de test est verrouillée",
                  "types": "un vieux composant ne compile plus",
                  "smtp": "le relais SMTP coupe la connexion",
                  "lint": "un exemple de l'OpenAPI est invalide",
                  "gateway": "la passerelle de paiement répond 502",
                  "backup": "la base de sauvegarde refuse la connexion"},
    status_question=("Où en es-tu ?", "Tu en es où sur {ticket} ?", "Un point rapide ?"),
    status_answer=("{ticket} : la cause est trouvée dans {symbol}, le correctif est en cours "
                   "dans {src}. {next}{step}."),
    decisions_operator=(
        ("Pour {ticket}, on corrige dans {symbol} plutôt que d'ajouter un contournement "
         "chez l'appelant. C'est tranché.",
         "Entendu : la correction va dans {symbol} ({src})."),
        ("On ne garde pas l'ancien comportement de {symbol} : on casse la compatibilité, "
         "je préviens les clients.",
         "D'accord, je supprime l'ancien chemin de {symbol} et je l'écris dans {doc}."),
        ("Pour {ticket}, pas de nouvelle table : on ajoute une colonne.",
         "Compris : une colonne, pas de table, pour {ticket}."),
        ("On livre {ticket} derrière un drapeau de fonctionnalité désactivé par défaut.",
         "D'accord : {symbol} passera par le drapeau, éteint par défaut."),
    ),
    decisions_queen=(
        ("Pour {ticket}, on garde la compatibilité avec l'ancien format ?",
         "Décision : oui, l'ancien format reste accepté jusqu'à la prochaine version "
         "majeure, avec un avertissement dans les journaux."),
        ("{symbol} doit-il lever une exception ou renvoyer None ?",
         "Décision : {symbol} lève ValueError ; renvoyer None cacherait le problème de "
         "{ticket}."),
        ("On met le correctif de {ticket} dans la version 2.4 ou la 2.5 ?",
         "Décision : dans la 2.4.1, c'est un correctif sans changement d'interface."),
    ),
    request=("Quand tu auras fini {ticket}, mets à jour {doc}.",
             "Après {ticket}, vérifie aussi {test} sur la branche de version."),
    request_answer="D'accord, je le fais juste après {ticket}.",
    close_bee=("{ticket} terminé : correctif commité, tests verts, {doc} à jour. Ticket "
               "fermé."),
    close_operator=("C'est validé pour {ticket}, tu peux le fermer.",
                    "Relu et fusionné : {ticket} est fermé, merci."),
    close_operator_answer="Fait : {ticket} est fermé.",
    steps=("relancer {test} après la correction de {symbol}",
           "corriger {symbol} dans {src}",
           "mettre à jour {doc} puis fermer {ticket}",
           "ouvrir la pull request de {ticket}",
           "ajouter un test du cas limite dans {test}"),
    next_label="Prochaine étape : ",
    note_questions=("", "Continue.", "Point d'étape ?", "Et ensuite ?"),
    commit="{ticket} : corrige {symbol}",
)

EN = Phrases(
    mission=("Maintain the Hive's billing back office (src/app, tests, docs): fix the "
             "backlog's tickets without breaking production."),
    rules=(
        "Never push to main without a review.",
        "Always run the full test suite before a commit.",
        "No new dependency without my approval.",
        "Commit messages start with the ticket number.",
        "Never touch migrations already applied in production.",
        "Answer me in English, identifiers stay as they are.",
        "No secrets in the repository: keys come from environment variables.",
        "Every bug fix comes with a test that reproduces it.",
        "No force-push on a shared branch.",
        "Amounts are Decimal, never float.",
        "Do not delete any file under docs/ without asking me.",
        "Keep functions under fifty lines.",
        "Report any flaky test to me instead of rerunning it in a loop.",
        "Dates are stored in UTC and shown in the customer's time zone.",
        "Never send a real email from the tests.",
        "Update CHANGELOG.md with every closed ticket.",
        "No print() in the code: use the logger.",
        "Ask me before touching the production configuration.",
        "SQL goes through the ORM, no raw SQL.",
        "A pull request does not mix refactoring and a fix.",
        "Split files longer than four hundred lines.",
        "Branches are named ticket/short-description.",
        "Never disable a test to make CI pass.",
        "Document every new endpoint in docs/api.md.",
        "Stop and ask me if a task takes more than two hours.",
    ),
    rule_acks=("Understood, I will stick to it.", "Noted, applying it from now on.",
               "All right, noted for what comes next.",
               "Understood. I am checking that what I did so far follows it."),
    repeat_acks=("Yes, noted, I am sticking to it.", "Got it, still applying it.",
                 "Still noted.", "Yes, I have not broken that rule."),
    assign=("Take {ticket}: {title}.", "New ticket for you, {ticket}: {title}.",
            "Handle {ticket} first: {title}."),
    assign_answer=("All right, I am taking {ticket}. I will start by reading {src} and "
                   "{test}. {next}read {src} again and reproduce the problem in {test}."),
    pickup_question=("The backlog is waiting: which ticket do you take?",
                     "Next ticket?", "What are you taking now?"),
    pickup_answer=("I am taking {ticket} ({title}). Opening it and starting with {src}. "
                   "{next}read {src} and {test}."),
    reading=("{src}: {symbol} is called from three places; the case of {ticket} goes "
             "through the untested branch.",
             "I read {src}. {symbol} assumes its input is already validated, which is not "
             "the case here.",
             "Nothing wrong in {src}; the cause is probably upstream of {symbol}."),
    plan=("Analysis of {ticket}: the cause is in {symbol} ({src}). Plan: write a test that "
          "reproduces the problem in {test}, fix {symbol}, run the suite again. "
          "{next}{step}."),
    failing=("The test fails as expected: {symbol} returns a wrong value. Fixing {src}. "
             "{next}run {test} again after the fix."),
    failing_again=("Another failure in {test}: my fix of {symbol} misses the edge case. "
                   "Back to {src}. {next}run {test} again."),
    passing=("{test} passes now ({count} tests green). {next}{step}."),
    open_failure=("{path} fails for a reason outside {ticket} ({reason}). I cannot fix it "
                  "from here: I am leaving it open and carrying on with {ticket}."),
    open_reasons={"s3": "the S3 endpoint cannot be reached from the sandbox",
                  "e2e": "the test browser times out",
                  "ssh": "the deploy key is refused",
                  "missing": "the file is gone from the repository",
                  "perf": "the time budget is exceeded on this machine",
                  "denied": "I am not allowed to write that file",
                  "migration": "the test database is locked",
                  "types": "an old component no longer compiles",
                  "smtp": "the SMTP relay drops the connection",
                  "lint": "an OpenAPI example is invalid",
                  "gateway": "the payment gateway answers 502",
                  "backup": "the backup database refuses the connection"},
    status_question=("Where are you at?", "How far along is {ticket}?", "Quick update?"),
    status_answer=("{ticket}: the cause is found in {symbol}, the fix is under way in "
                   "{src}. {next}{step}."),
    decisions_operator=(
        ("For {ticket}, we fix it in {symbol} rather than adding a workaround in the "
         "caller. That is settled.",
         "Understood: the fix goes into {symbol} ({src})."),
        ("We do not keep the old behaviour of {symbol}: we break compatibility, I will "
         "tell the customers.",
         "All right, I am removing the old path of {symbol} and writing it down in {doc}."),
        ("For {ticket}, no new table: we add a column.",
         "Understood: a column, not a table, for {ticket}."),
        ("We ship {ticket} behind a feature flag, off by default.",
         "All right: {symbol} will go through the flag, off by default."),
    ),
    decisions_queen=(
        ("For {ticket}, do we keep compatibility with the old format?",
         "Decision: yes, the old format stays accepted until the next major version, with "
         "a warning in the logs."),
        ("Should {symbol} raise an exception or return None?",
         "Decision: {symbol} raises ValueError; returning None would hide the problem of "
         "{ticket}."),
        ("Does the fix for {ticket} go into 2.4 or 2.5?",
         "Decision: into 2.4.1, it is a fix with no interface change."),
    ),
    request=("When you are done with {ticket}, update {doc}.",
             "After {ticket}, also check {test} on the release branch."),
    request_answer="All right, I will do it right after {ticket}.",
    close_bee="{ticket} done: fix committed, tests green, {doc} updated. Ticket closed.",
    close_operator=("{ticket} is approved, you can close it.",
                    "Reviewed and merged: {ticket} is closed, thanks."),
    close_operator_answer="Done: {ticket} is closed.",
    steps=("run {test} again after fixing {symbol}",
           "fix {symbol} in {src}",
           "update {doc} then close {ticket}",
           "open the pull request for {ticket}",
           "add a test for the edge case in {test}"),
    next_label="Next step: ",
    note_questions=("", "Continue.", "Status?", "What next?"),
    commit="{ticket}: fix {symbol}",
)

PHRASES = {"fr": FR, "en": EN}
