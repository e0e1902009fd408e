"""The projects the eval's generated sessions work on (bench/memory.py): one per seed.

Each project is a real-looking repository: its files, the commands a coding agent runs on
it (tests of one file or package, the whole suite, linters, builds, wrappers that run other
commands with the build file that says so, and commands that fail for reasons outside the
code), its tickets, and the choices the agent settles. Tools speak English whatever the
session's language; what people say is given in French and English.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TestTarget:
    """A test command naming one file or package, and the path it covers (None when the
    command names no path the view could show, as Gradle's class filter)."""

    command: str
    path: str | None
    name: str  # a test function that fails in it
    narrow: str | None = None  # the same path, one test only: fixed by `command` (covering)


@dataclass(frozen=True)
class Choice:
    """A subject the agent settles: `first` then, when reversed, `second`."""

    subject: dict[str, str]
    first: str
    second: str
    why_first: dict[str, str]
    why_second: dict[str, str]


@dataclass(frozen=True)
class Wrapper:
    """A command that runs others (a make target, a just recipe, an npm script, a smoke
    script): its success fixes the failures of the commands it runs. `runs` are those
    commands as the agent runs them alone; `file` is the build file that says so, and
    `recipe` the lines of it that do (what the wrapper echoes when it runs)."""

    command: str
    runs: tuple[str, ...]
    file: str
    recipe: tuple[str, ...]
    text: str  # the build file as a Read shows it


@dataclass(frozen=True)
class Project:
    key: str
    bee: str
    eco: str  # python, rust, go, ts, kotlin: which tool outputs
    root: str  # the checkout's folder as tools print it
    package: str  # crate, module or package name as tools print it
    mission: dict[str, str]
    sources: tuple[str, ...]
    tests: tuple[TestTarget, ...]
    docs: tuple[str, ...]
    symbols: tuple[str, ...]
    suite: tuple[str, ...]  # whole-suite test commands (naming no path)
    long_suite: str  # the verbose whole-suite run whose log is long
    lint: tuple[str, ...]
    build: tuple[str, ...]
    broken: tuple[str, ...]  # fail for reasons outside the code: never fixed here
    prefix: str  # tracker prefix (WX-230); some tickets are GitHub's (#1412, issue 1503)
    titles: dict[str, tuple[str, ...]]  # at least 6 per language
    choices: tuple[Choice, ...]
    history: tuple[str, ...]  # old commit subjects, {old} = a ticket never worked on here
    wrappers: tuple[Wrapper, ...]  # at least two: commands fixed by another command
    branch: str = "main"


# Build files that hold two wrappers each: what a Read of them shows.
BILLING_MAKEFILE = (
    ".PHONY: lint test manifests-check run\n\nlint:\n\truff check src tests\n\t"
    "mypy src/billing\n\ntest:\n\tpytest -q\n\nmanifests-check:\n\tkubeconform "
    "-strict -summary deploy/k8s/\n\nrun:\n\tuvicorn billing.api.app:app --reload\n")

CLI_MAKEFILE = (
    "GO ?= go\n\n.PHONY: build lint test release-check\n\nbuild:\n\t$(GO) build -o "
    "bin/tide ./cmd/tide\n\nlint:\n\t$(GO) vet ./...\n\tgolangci-lint run ./...\n\n"
    "test:\n\t$(GO) test -race ./...\n\nrelease-check:\n\tgoreleaser check\n")

SITE_PACKAGE_JSON = (
    '{\n  "name": "quire",\n  "version": "0.8.0",\n  "type": "module",\n  "scripts": '
    '{\n    "build": "tsc --noEmit && node scripts/build.mjs",\n    "lint": "eslint '
    'src",\n    "test": "vitest run",\n    "dev": "node scripts/dev.mjs"\n  },\n  '
    '"devDependencies": {\n    "eslint": "^9.9.0",\n    "typescript": "^5.5.4",\n'
    '    "vitest": "^2.0.5"\n  }\n}\n')

MOBILE_MAKEFILE = (
    ".PHONY: lint manifests-check run\n\nlint:\n\t./gradlew ktlintCheck detekt\n\n"
    "manifests-check:\n\tkubeconform -strict -summary manifests/\n\nrun:\n\t"
    "./gradlew run\n")


WEATHER = Project(
    key="weather", bee="anemo", eco="rust", root="/home/pi/wx-station", package="wx-station",
    mission={
        "en": "Port the weather station daemon from Python to Rust (serial decoding, METAR "
              "reports, storage, uploads) without losing a reading on the Raspberry Pi.",
        "fr": "Porter le démon de la station météo de Python vers Rust (décodage série, "
              "bulletins METAR, stockage, envois) sans perdre une mesure sur le Raspberry Pi.",
    },
    sources=("src/main.rs", "src/decoder.rs", "src/serial.rs", "src/storage.rs",
             "src/metar.rs", "src/upload.rs", "src/config.rs", "src/units.rs"),
    tests=(TestTarget("cargo test --test decoder", "tests/decoder.rs", "parses_variable_wind"),
           TestTarget("cargo test --test metar", "tests/metar.rs", "rounds_visibility_down"),
           TestTarget("cargo test --test storage", "tests/storage.rs", "keeps_readings_in_order"),
           TestTarget("cargo test --test upload", "tests/upload.rs", "retries_after_timeout")),
    docs=("docs/porting-notes.md", "README.md"),
    symbols=("decode_frame", "parse_wind", "GustFilter", "ReadingStore", "flush_batch",
             "MetarReport", "celsius_to_kelvin", "SerialLink", "upload_batch", "StationConfig"),
    suite=("cargo test", "cargo test --workspace"),
    long_suite="cargo test --workspace -- --nocapture",
    lint=("cargo clippy -- -D warnings", "cargo fmt --check"),
    build=("cargo build --release --target armv7-unknown-linux-gnueabihf",),
    broken=("ssh pi@wx-station.local sudo systemctl restart wxd",
            "cross build --release --target armv7-unknown-linux-gnueabihf"),
    prefix="WX",
    titles={
        "en": ("wind gusts are dropped when the direction is variable",
               "readings are stored twice after a serial reconnect",
               "the METAR visibility is rounded up instead of down",
               "uploads to the weather network time out and are never retried",
               "the barometer offset from the old config file is ignored",
               "temperatures below zero are decoded as 255 °C"),
        "fr": ("les rafales sont perdues quand la direction du vent est variable",
               "les mesures sont stockées deux fois après une reconnexion série",
               "la visibilité METAR est arrondie au-dessus au lieu d'en dessous",
               "les envois vers le réseau météo expirent et ne sont jamais relancés",
               "le décalage du baromètre de l'ancien fichier de config est ignoré",
               "les températures négatives sont décodées en 255 °C"),
    },
    choices=(
        Choice({"en": "the readings storage", "fr": "le stockage des mesures"},
               "SQLite", "Postgres",
               {"en": "one file on the Pi, nothing to run next to the daemon",
                "fr": "un seul fichier sur le Pi, rien à faire tourner à côté"},
               {"en": "the club wants the readings from three stations in one database",
                "fr": "le club veut les mesures de trois stations dans une seule base"}),
        Choice({"en": "the serial crate", "fr": "la crate série"}, "tokio-serial", "serialport",
               {"en": "the daemon is already async", "fr": "le démon est déjà asynchrone"},
               {"en": "a blocking thread is simpler for one port",
                "fr": "un thread bloquant suffit pour un seul port"}),
        Choice({"en": "dates and time zones", "fr": "les dates et les fuseaux"}, "chrono", "jiff",
               {"en": "every other crate here speaks it",
                "fr": "toutes les autres crates ici l'utilisent"},
               {"en": "its time zone handling is right across DST",
                "fr": "sa gestion des fuseaux est juste au changement d'heure"}),
        Choice({"en": "the log format", "fr": "le format des journaux"}, "journald", "logfmt",
               {"en": "the Pi already ships everything to journald",
                "fr": "le Pi envoie déjà tout à journald"},
               {"en": "the club's Loki only parses logfmt",
                "fr": "le Loki du club ne lit que du logfmt"}),
    ),
    history=("wx: read the anemometer at 4 Hz", "{old}: log serial frames that fail the CRC",
             "Merge pull request #{num} from club/pi-image", "storage: vacuum the db weekly",
             "{old}: document the wiring of the rain gauge", "ci: cache the cargo registry"),
    wrappers=(
        Wrapper("just lint", ("cargo clippy -- -D warnings", "cargo fmt --check"), "justfile",
                ("cargo clippy -- -D warnings", "cargo fmt --check"),
                "set dotenv-load\n\ndefault:\n    @just --list\n\nlint:\n    cargo clippy -- "
                "-D warnings\n    cargo fmt --check\n\ntest:\n    cargo test --workspace\n\n"
                "deploy host=\"wx-station.local\":\n    scp target/armv7-unknown-linux-gnueabihf/"
                "release/wxd pi@{{host}}:/tmp/wxd\n"),
        Wrapper("scripts/smoke.sh", ("nslookup wx-station.local",), "scripts/smoke.sh",
                ("nslookup wx-station.local", "curl -fsS http://wx-station.local:8080/healthz"),
                "#!/usr/bin/env bash\n# Smoke test of a deployed station: name, then health.\n"
                "set -euxo pipefail\nHOST=${1:-wx-station.local}\nnslookup \"$HOST\"\ncurl -fsS "
                "\"http://$HOST:8080/healthz\"\necho \"smoke: ok\"\n"),
    ),
)

BILLING = Project(
    key="billing", bee="ledger", eco="python", root="/srv/dev/billing-svc",
    package="billing",
    mission={
        "en": "Keep the billing service correct: invoices, taxes, credit notes and PDF "
              "exports for the EU customers, with every change tested before it ships.",
        "fr": "Garder le service de facturation juste : factures, taxes, avoirs et exports PDF "
              "pour les clients européens, chaque changement testé avant d'être livré.",
    },
    sources=("src/billing/invoices.py", "src/billing/tax.py", "src/billing/pdf.py",
             "src/billing/api/routes.py", "src/billing/models.py", "src/billing/dunning.py",
             "src/billing/currency.py", "migrations/versions/0042_credit_notes.py"),
    tests=(TestTarget("pytest tests/test_tax.py -q", "tests/test_tax.py",
                      "test_reverse_charge_for_b2b",
                      "pytest tests/test_tax.py::test_reverse_charge_for_b2b -x"),
           TestTarget("pytest tests/test_invoices.py -q", "tests/test_invoices.py",
                      "test_credit_note_negates_lines",
                      "pytest tests/test_invoices.py::test_credit_note_negates_lines"),
           TestTarget("python -m pytest tests/test_pdf.py", "tests/test_pdf.py",
                      "test_pdf_shows_vat_breakdown"),
           TestTarget("pytest tests/api/test_routes.py -q", "tests/api/test_routes.py",
                      "test_list_invoices_paginates",
                      "pytest tests/api/test_routes.py -k paginates")),
    docs=("docs/taxes.md", "docs/api.md"),
    symbols=("compute_vat", "CreditNote", "render_invoice_pdf", "InvoiceLine", "round_half_even",
             "DunningPolicy", "to_minor_units", "list_invoices", "apply_reverse_charge",
             "InvoiceRepository"),
    suite=("pytest -q", "python -m pytest"),
    long_suite="pytest -v -rA",
    lint=("ruff check src tests", "mypy src/billing"),
    build=("docker build -t billing-svc:dev .",),
    broken=("./scripts/deploy.sh staging", "stripe listen --forward-to localhost:8000/webhooks"),
    prefix="BILL",
    titles={
        "en": ("reverse charge is not applied to B2B customers in Belgium",
               "credit notes keep the sign of the original lines",
               "the PDF export misses the VAT breakdown per rate",
               "invoice listing returns every invoice when the page size is zero",
               "dunning emails go out on public holidays",
               "amounts in yen are shown with two decimals"),
        "fr": ("l'autoliquidation n'est pas appliquée aux clients B2B en Belgique",
               "les avoirs gardent le signe des lignes d'origine",
               "l'export PDF n'a pas le détail de la TVA par taux",
               "la liste des factures renvoie tout quand la taille de page vaut zéro",
               "les relances partent les jours fériés",
               "les montants en yens s'affichent avec deux décimales"),
    },
    choices=(
        Choice({"en": "invoice identifiers", "fr": "les identifiants de facture"},
               "UUIDv4", "ULID",
               {"en": "nothing to coordinate between workers",
                "fr": "rien à coordonner entre les workers"},
               {"en": "the accountants want invoices sorted by creation time",
                "fr": "les comptables veulent les factures triées par date de création"}),
        Choice({"en": "the PDF renderer", "fr": "le moteur PDF"}, "WeasyPrint", "ReportLab",
               {"en": "the templates are already HTML", "fr": "les gabarits sont déjà en HTML"},
               {"en": "it draws the tables without a browser engine",
                "fr": "il dessine les tableaux sans moteur de navigateur"}),
        Choice({"en": "background jobs", "fr": "les tâches de fond"}, "Celery", "Dramatiq",
               {"en": "the ops team already runs it", "fr": "l'équipe ops le fait déjà tourner"},
               {"en": "fewer moving parts for two queues",
                "fr": "moins de pièces mobiles pour deux files"}),
        Choice({"en": "the PDF archive", "fr": "l'archive des PDF"}, "S3", "GCS",
               {"en": "the rest of the platform is on AWS",
                "fr": "le reste de la plateforme est chez AWS"},
               {"en": "finance's retention policy is set up on GCS",
                "fr": "la politique de rétention de la compta est sur GCS"}),
    ),
    history=("{old}: round VAT per line, not per invoice", "Merge pull request #{num} from "
             "acme/dependabot/pip/sqlalchemy-2.0.31", "docs: explain credit notes",
             "{old}: stop retrying declined cards", "chore: bump ruff"),
    wrappers=(
        Wrapper("make lint", ("ruff check src tests", "mypy src/billing"), "Makefile",
                ("ruff check src tests", "mypy src/billing"),
                BILLING_MAKEFILE),
        Wrapper("make manifests-check", ("kubeconform -strict deploy/k8s/",), "Makefile",
                ("kubeconform -strict -summary deploy/k8s/",),
                BILLING_MAKEFILE),
    ),
)

CLI = Project(
    key="cli", bee="tide", eco="go", root="/home/dev/tidewater",
    package="github.com/acme/tidewater",
    mission={
        "en": "Maintain tidewater, the command-line tool that renames and sorts photos by "
              "their EXIF date: safe plans, dry runs, and no file ever lost.",
        "fr": "Maintenir tidewater, l'outil en ligne de commande qui renomme et range les "
              "photos par date EXIF : plans sûrs, essais à blanc, aucun fichier perdu.",
    },
    sources=("cmd/tide/main.go", "internal/exif/reader.go", "internal/rename/plan.go",
             "internal/rename/apply.go", "internal/config/config.go", "internal/ui/progress.go",
             "internal/fsutil/move.go"),
    tests=(TestTarget("go test ./internal/exif/", "internal/exif", "TestReadOrientation",
                      "go test ./internal/exif/ -run TestReadOrientation"),
           TestTarget("go test ./internal/rename/", "internal/rename", "TestPlanKeepsDuplicates",
                      "go test ./internal/rename/ -run TestPlanKeepsDuplicates"),
           TestTarget("go test ./internal/config/", "internal/config", "TestLoadDefaults"),
           TestTarget("go test ./internal/fsutil/", "internal/fsutil", "TestMoveAcrossDevices")),
    docs=("docs/usage.md", "CHANGELOG.md"),
    symbols=("ReadOrientation", "BuildPlan", "ApplyPlan", "LoadConfig", "MoveFile",
             "ProgressBar", "parseDateTimeOriginal", "dedupeTargets", "renderTemplate",
             "ErrCrossDevice"),
    suite=("go test ./...", "go test -race ./..."),
    long_suite="go test -v ./...",
    lint=("golangci-lint run", "go vet ./..."),
    build=("go build -o bin/tide ./cmd/tide",),
    broken=("gh release create v0.9.0 --draft --generate-notes", "brew audit --strict tidewater"),
    prefix="TIDE",
    titles={
        "en": ("photos from the Pixel are rotated twice",
               "two photos taken in the same second overwrite each other",
               "the config file in XDG_CONFIG_HOME is ignored",
               "moving files to an external disk fails with a cross-device error",
               "the progress bar hangs at 99 % on large folders",
               "dry run prints paths with a double slash"),
        "fr": ("les photos du Pixel sont tournées deux fois",
               "deux photos prises dans la même seconde s'écrasent",
               "le fichier de config dans XDG_CONFIG_HOME est ignoré",
               "déplacer vers un disque externe échoue avec une erreur cross-device",
               "la barre de progression reste bloquée à 99 % sur les gros dossiers",
               "l'essai à blanc affiche des chemins avec une double barre"),
    },
    choices=(
        Choice({"en": "the config file format", "fr": "le format du fichier de config"},
               "TOML", "YAML",
               {"en": "comments and no indentation traps",
                "fr": "des commentaires et pas de piège d'indentation"},
               {"en": "the photo-management tools users pair it with all write YAML",
                "fr": "les outils photo avec lesquels on l'utilise écrivent tous du YAML"}),
        Choice({"en": "the command-line parser", "fr": "l'analyseur de ligne de commande"},
               "cobra", "kong",
               {"en": "completions for free", "fr": "les complétions sans effort"},
               {"en": "one struct describes every flag",
                "fr": "une seule structure décrit chaque option"}),
        Choice({"en": "duplicate detection", "fr": "la détection des doublons"}, "xxhash", "sha256",
               {"en": "it is fast on large libraries", "fr": "rapide sur les grosses photothèques"},
               {"en": "users compare the digests with other tools",
                "fr": "les utilisateurs comparent les empreintes avec d'autres outils"}),
        Choice({"en": "release packaging", "fr": "l'empaquetage des versions"}, "goreleaser",
               "nfpm",
               {"en": "it builds the archives and the Homebrew formula in one go",
                "fr": "il fait les archives et la formule Homebrew d'un coup"},
               {"en": "the distro maintainers only want .deb and .rpm files",
                "fr": "les mainteneurs des distributions ne veulent que des .deb et des .rpm"}),
    ),
    history=("Merge pull request #{num} from acme/goreleaser-v2", "{old}: read HEIC dates",
             "exif: guard against truncated APP1 segments", "{old}: keep sidecar files with "
             "their photo", "ci: test on macOS too"),
    wrappers=(
        Wrapper("make lint", ("go vet ./...", "golangci-lint run"), "Makefile",
                ("go vet ./...", "golangci-lint run ./..."),
                CLI_MAKEFILE),
        Wrapper("make release-check", ("goreleaser check",), "Makefile", ("goreleaser check",),
                CLI_MAKEFILE),
    ),
)

SITE = Project(
    key="site", bee="quill", eco="ts", root="/home/dev/quire", package="quire",
    mission={
        "en": "Develop quire, the static site generator for the docs team: markdown, "
              "templates, feeds and a dev server, fast builds and no broken links.",
        "fr": "Développer quire, le générateur de site statique de l'équipe doc : markdown, "
              "gabarits, flux et serveur de dev, des builds rapides et aucun lien cassé.",
    },
    sources=("src/build.ts", "src/markdown.ts", "src/templates.ts", "src/feed.ts",
             "src/server.ts", "src/config.ts", "src/links.ts"),
    tests=(TestTarget("npx vitest run test/markdown.test.ts", "test/markdown.test.ts",
                      "renders footnotes after the last paragraph",
                      "npx vitest run test/markdown.test.ts --reporter=verbose"),
           TestTarget("npx vitest run test/feed.test.ts", "test/feed.test.ts",
                      "escapes titles in the Atom feed"),
           TestTarget("npx vitest run test/links.test.ts", "test/links.test.ts",
                      "reports links to missing anchors"),
           TestTarget("npx vitest run test/server.test.ts", "test/server.test.ts",
                      "reloads the page when a partial changes")),
    docs=("docs/configuration.md", "docs/themes.md"),
    symbols=("renderMarkdown", "buildSite", "loadTemplates", "writeFeed", "checkLinks",
             "resolveConfig", "watchSources", "slugify", "FootnoteRule", "PageContext"),
    suite=("npm test", "npx vitest run"),
    long_suite="npx vitest run --reporter=verbose",
    lint=("npx eslint src", "npx tsc --noEmit"),
    build=("npm run build",),
    broken=("npx wrangler pages deploy dist --project-name quire-docs",
            "npm publish --dry-run"),
    prefix="QR",
    titles={
        "en": ("footnotes are rendered before the last paragraph",
               "titles with an ampersand break the Atom feed",
               "links to missing anchors are not reported",
               "the dev server does not reload when a partial changes",
               "the build takes 40 s on the handbook",
               "slugs of French titles lose their accents badly"),
        "fr": ("les notes de bas de page sont rendues avant le dernier paragraphe",
               "les titres avec une esperluette cassent le flux Atom",
               "les liens vers des ancres absentes ne sont pas signalés",
               "le serveur de dev ne recharge pas quand un partiel change",
               "le build prend 40 s sur le manuel",
               "les slugs des titres français perdent mal leurs accents"),
    },
    choices=(
        Choice({"en": "the markdown parser", "fr": "l'analyseur markdown"}, "markdown-it", "remark",
               {"en": "its plugins cover footnotes and anchors",
                "fr": "ses greffons couvrent les notes et les ancres"},
               {"en": "we need the syntax tree to check links",
                "fr": "il nous faut l'arbre syntaxique pour vérifier les liens"}),
        Choice({"en": "the template engine", "fr": "le moteur de gabarits"}, "Nunjucks", "Eta",
               {"en": "the docs team already knows Jinja", "fr": "l'équipe doc connaît déjà Jinja"},
               {"en": "it is typed and three times faster",
                "fr": "il est typé et trois fois plus rapide"}),
        Choice({"en": "image resizing", "fr": "le redimensionnement des images"},
               "sharp", "squoosh",
               {"en": "it is the fastest on Linux", "fr": "c'est le plus rapide sous Linux"},
               {"en": "no native binary to install on the CI runners",
                "fr": "pas de binaire natif à installer sur la CI"}),
        Choice({"en": "the docs hosting", "fr": "l'hébergement de la doc"}, "Cloudflare",
               "Netlify",
               {"en": "the company's DNS is already there",
                "fr": "le DNS de l'entreprise y est déjà"},
               {"en": "preview deploys per pull request come for free",
                "fr": "les déploiements de prévisualisation par PR sont gratuits"}),
    ),
    history=("{old}: keep trailing slashes in permalinks", "Merge pull request #{num} from "
             "docs/handbook-nav", "feat: syntax highlighting with shiki", "{old}: ignore "
             "drafts in the sitemap", "chore(deps): bump vite"),
    wrappers=(
        Wrapper("npm run build", ("npx tsc --noEmit",), "package.json",
                ("tsc --noEmit && node scripts/build.mjs",),
                SITE_PACKAGE_JSON),
        Wrapper("npm run lint", ("npx eslint src",), "package.json", ("eslint src",),
                SITE_PACKAGE_JSON),
    ),
)

PIPELINE = Project(
    key="pipeline", bee="riviere", eco="python", root="/opt/riverflow", package="riverflow",
    mission={
        "en": "Run riverflow, the daily pipeline of river gauge readings: extract from the "
              "agencies, clean, check quality and load into the warehouse by 6 a.m.",
        "fr": "Faire tourner riverflow, le pipeline quotidien des relevés de hauteur d'eau : "
              "extraire des agences, nettoyer, contrôler et charger l'entrepôt avant 6 h.",
    },
    sources=("riverflow/extract.py", "riverflow/transform.py", "riverflow/load.py",
             "riverflow/schemas.py", "riverflow/quality.py", "dags/daily_gauges.py",
             "riverflow/agencies/vigicrues.py"),
    tests=(TestTarget("pytest tests/test_transform.py -x", "tests/test_transform.py",
                      "test_flags_negative_heights",
                      "pytest tests/test_transform.py::test_flags_negative_heights"),
           TestTarget("pytest tests/test_quality.py", "tests/test_quality.py",
                      "test_gap_over_six_hours_is_reported"),
           TestTarget("pytest tests/test_load.py -q", "tests/test_load.py",
                      "test_upsert_is_idempotent",
                      "pytest tests/test_load.py -k idempotent"),
           TestTarget("pytest tests/agencies/test_vigicrues.py", "tests/agencies/test_vigicrues.py",
                      "test_parses_station_codes")),
    docs=("docs/runbook.md", "docs/schemas.md"),
    symbols=("extract_readings", "normalize_units", "flag_outliers", "upsert_readings",
             "GaugeReading", "QualityReport", "resample_hourly", "station_code",
             "load_partition", "fetch_vigicrues"),
    suite=("pytest", "pytest -q"),
    long_suite="pytest -v --log-level=INFO",
    lint=("ruff check riverflow dags", "mypy riverflow"),
    build=("docker compose build worker",),
    broken=("dbt run --select marts.gauges_daily", "aws s3 ls s3://gauges-raw/2026/"),
    prefix="DATA",
    titles={
        "en": ("negative river heights reach the warehouse unflagged",
               "gaps over six hours are not reported by the quality check",
               "reloading a day duplicates its rows",
               "Vigicrues station codes with a letter are rejected",
               "the DAG runs twice after daylight saving time",
               "hourly resampling shifts readings by one hour"),
        "fr": ("des hauteurs d'eau négatives arrivent dans l'entrepôt sans drapeau",
               "les trous de plus de six heures ne sont pas signalés par le contrôle qualité",
               "recharger une journée duplique ses lignes",
               "les codes de station Vigicrues avec une lettre sont rejetés",
               "le DAG tourne deux fois après le changement d'heure",
               "le rééchantillonnage horaire décale les relevés d'une heure"),
    },
    choices=(
        Choice({"en": "the staging file format", "fr": "le format des fichiers intermédiaires"},
               "Parquet", "Avro",
               {"en": "columnar and the warehouse reads it natively",
                "fr": "en colonnes, et l'entrepôt le lit directement"},
               {"en": "the agencies' feeds change schema every month",
                "fr": "les flux des agences changent de schéma tous les mois"}),
        Choice({"en": "the dataframe library", "fr": "la bibliothèque de dataframes"},
               "pandas", "polars",
               {"en": "the analysts read the code", "fr": "les analystes relisent le code"},
               {"en": "the hourly resampling is ten times faster",
                "fr": "le rééchantillonnage horaire va dix fois plus vite"}),
        Choice({"en": "the orchestrator", "fr": "l'orchestrateur"}, "Airflow", "Dagster",
               {"en": "the platform team hosts it", "fr": "l'équipe plateforme l'héberge"},
               {"en": "assets match how we think about daily partitions",
                "fr": "les assets collent à nos partitions journalières"}),
        Choice({"en": "reloading a partition", "fr": "le rechargement d'une partition"},
               "OVERWRITE", "MERGE",
               {"en": "a reload replaces the whole day in one statement",
                "fr": "un rechargement remplace toute la journée en une requête"},
               {"en": "late readings from the agencies must survive a reload",
                "fr": "les relevés tardifs des agences doivent survivre au rechargement"}),
    ),
    history=("{old}: accept gauges without altitude", "Merge pull request #{num} from "
             "data/vigicrues-v2", "quality: report stale stations", "{old}: partition by "
             "agency and day", "ci: pin pyarrow"),
    wrappers=(
        Wrapper("make lint", ("ruff check riverflow dags", "tflint"), "Makefile",
                ("ruff check riverflow dags", "cd infra && tflint --recursive"),
                ".PHONY: lint test smoke\n\nlint:\n\truff check riverflow dags\n\tcd infra && "
                "tflint --recursive\n\ntest:\n\tpytest -q\n\nsmoke:\n\tscripts/smoke.sh\n"),
        Wrapper("scripts/smoke.sh", ("nslookup warehouse.internal",), "scripts/smoke.sh",
                ("nslookup warehouse.internal", "psql \"$WAREHOUSE_URL\" -c 'select 1'"),
                "#!/usr/bin/env bash\n# Can the workers reach the warehouse? Run before a "
                "backfill.\nset -euxo pipefail\nnslookup warehouse.internal\npsql "
                "\"$WAREHOUSE_URL\" -c 'select 1'\necho \"smoke: ok\"\n"),
    ),
)

MOBILE = Project(
    key="mobile", bee="rides", eco="kotlin", root="/home/dev/rides-api", package="com.acme.rides",
    mission={
        "en": "Build the backend of the ride-sharing app: trips, seat holds, payments and push "
              "notifications, with an API the iOS and Android apps can rely on.",
        "fr": "Construire le backend de l'appli de covoiturage : trajets, réservations, "
              "paiements et notifications, avec une API fiable pour les applis iOS et Android.",
    },
    sources=("src/main/kotlin/com/acme/rides/TripService.kt",
             "src/main/kotlin/com/acme/rides/SeatHold.kt",
             "src/main/kotlin/com/acme/rides/PaymentClient.kt",
             "src/main/kotlin/com/acme/rides/PushSender.kt",
             "src/main/kotlin/com/acme/rides/api/TripRoutes.kt",
             "src/main/kotlin/com/acme/rides/auth/TokenVerifier.kt",
             "src/main/resources/db/migration/V12__seat_holds.sql"),
    tests=(TestTarget("./gradlew test --tests com.acme.rides.TripServiceTest", None,
                      "cancelsExpiredHolds"),
           TestTarget("./gradlew test --tests com.acme.rides.SeatHoldTest", None,
                      "releasesSeatAfterTimeout"),
           TestTarget("./gradlew test --tests com.acme.rides.api.TripRoutesTest", None,
                      "rejectsTripWithoutDriver"),
           TestTarget("./gradlew test --tests com.acme.rides.auth.TokenVerifierTest", None,
                      "refusesExpiredToken")),
    docs=("docs/api.md", "docs/push.md"),
    symbols=("TripService", "SeatHold", "holdSeat", "releaseExpiredHolds", "PaymentClient",
             "PushSender", "TokenVerifier", "TripRoutes", "chargeRider", "notifyDriver"),
    suite=("./gradlew test", "./gradlew check"),
    long_suite="./gradlew test --info",
    lint=("./gradlew ktlintCheck", "./gradlew detekt"),
    build=("./gradlew assemble",),
    broken=("./gradlew publishToMavenLocal --offline", "fastlane beta"),
    prefix="MOB",
    titles={
        "en": ("expired seat holds are never released",
               "a trip can be created without a driver",
               "push notifications go to riders who cancelled",
               "expired tokens are accepted for five more minutes",
               "payments are captured twice when the app retries",
               "trip search ignores the rider's time zone"),
        "fr": ("les réservations expirées ne sont jamais libérées",
               "on peut créer un trajet sans conducteur",
               "les notifications partent vers des passagers qui ont annulé",
               "les jetons expirés sont acceptés cinq minutes de plus",
               "les paiements sont encaissés deux fois quand l'appli réessaie",
               "la recherche de trajets ignore le fuseau du passager"),
    },
    choices=(
        Choice({"en": "the auth tokens", "fr": "les jetons d'authentification"}, "JWT", "opaque",
               {"en": "the apps can read the expiry offline",
                "fr": "les applis lisent l'expiration hors ligne"},
               {"en": "we must be able to revoke a token at once",
                "fr": "il faut pouvoir révoquer un jeton tout de suite"}),
        Choice({"en": "push delivery", "fr": "l'envoi des notifications"}, "FCM", "OneSignal",
               {"en": "no third party sees the riders' devices",
                "fr": "aucun tiers ne voit les appareils des passagers"},
               {"en": "iOS delivery reports come with it", "fr": "les accusés iOS sont inclus"}),
        Choice({"en": "the database access layer", "fr": "la couche d'accès à la base"},
               "Ktorm", "jOOQ",
               {"en": "it is Kotlin all the way", "fr": "c'est du Kotlin de bout en bout"},
               {"en": "the seat-hold queries need window functions",
                "fr": "les requêtes de réservation ont besoin de fonctions de fenêtre"}),
        Choice({"en": "the rate limiter", "fr": "la limitation de débit"}, "Bucket4j",
               "Resilience4j",
               {"en": "it keeps the buckets in Redis with the sessions",
                "fr": "il garde les seaux dans Redis avec les sessions"},
               {"en": "we already use its circuit breaker around payments",
                "fr": "on utilise déjà son disjoncteur autour des paiements"}),
    ),
    history=("{old}: index trips by departure time", "Merge pull request #{num} from "
             "acme/ktor-3", "payments: idempotency keys on capture", "{old}: log push "
             "failures with the device id", "build: Gradle 8.10"),
    wrappers=(
        Wrapper("make lint", ("./gradlew ktlintCheck", "./gradlew detekt"), "Makefile",
                ("./gradlew ktlintCheck detekt",),
                MOBILE_MAKEFILE),
        Wrapper("make manifests-check", ("kubeconform -strict manifests/",), "Makefile",
                ("kubeconform -strict -summary manifests/",),
                MOBILE_MAKEFILE),
    ),
)

PROJECTS: tuple[Project, ...] = (WEATHER, BILLING, CLI, SITE, PIPELINE, MOBILE)


def project_for(seed: int) -> Project:
    return PROJECTS[(seed - 1) % len(PROJECTS)]
