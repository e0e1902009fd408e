"""The words of a view, in the hive's language (`langue`): labels, headings, notice.

Names that programs read (the header line, `render --json`, files) never change with the
language; only what the bee reads does. Sections are stored under their French names and
shown under the language's.
"""

from __future__ import annotations

from dataclasses import dataclass

MISSION = "Mission"
DECISIONS = "Décisions"
FILES = "Fichiers"
ERRORS = "Erreurs"
PAROLES = "Paroles de l'apicultrice"
WORK = "Travail en cours"
NEXT = "Prochaine étape"
SECTIONS = (MISSION, DECISIONS, FILES, ERRORS, PAROLES, WORK, NEXT)


# One instance per language: compared and hashed by identity, as the zones' caches key on
# it at every step (a field-by-field hash of thirty strings each time cost more).
@dataclass(frozen=True, eq=False)
class Labels:
    language: str
    question: str
    answer: str
    condensed_answer: str
    tool: str
    sender: str
    lighthouse: str
    failed: str  # a tool call the runtime says failed (`ok: false`)
    recit_title: str
    section_titles: tuple[str, ...]  # in the order of SECTIONS
    mission_prefix: str  # the handoff mode's mission line
    notice_template: str  # {bee}: the bee's name
    question_pointer: str  # {seq}: where a cut question is whole
    # Recall (`show`): an entry read from a character on, past its end, or cut.
    from_offset: str  # {offset}
    past_end: str  # {total}
    read_on: str  # {left}: characters left; {how}: the command or call that reads on
    colon: str  # between a name and what it says, in the language's typography
    cut_marker: str  # {seq}, {left}: where the middle of a long answer was left out

    def title(self, section: str) -> str:
        return self.section_titles[SECTIONS.index(section)]

    def notice(self, bee: str) -> str:
        return self.notice_template.format(bee=bee) + "\n"


FRENCH = Labels(
    language="fr",
    question="Question :",
    answer="Réponse :",
    condensed_answer="Réponse condensée :",
    tool="outil",
    sender="de",
    lighthouse="phare",
    failed="échec",
    recit_title="## Récit de soi",
    section_titles=SECTIONS,
    mission_prefix="**Mission :** ",
    notice_template=(
        "[horizon : le passé plus ancien est condensé ci-dessus ; l'historique intégral vit "
        "au journal window/{bee}-messages.jsonl et window/archive/]"),
    question_pointer="[… question coupée ici : l'intégrale est au journal, #{seq}]",
    from_offset="[… suite, à partir du caractère {offset}]",
    past_end="[rien au-delà : l'entrée a {total} caractères]",
    read_on="[… encore {left} caractères : {how}]",
    colon=" :",
    cut_marker="[… {left} caractères coupés ici : l'intégrale est au journal, #{seq}]",
)

ENGLISH = Labels(
    language="en",
    question="Question:",
    answer="Answer:",
    condensed_answer="Condensed answer:",
    tool="tool",
    sender="from",
    lighthouse="lighthouse",
    failed="failed",
    recit_title="## Self-narrative",
    section_titles=("Mission", "Decisions", "Files", "Errors", "Operator's words",
                    "Work in progress", "Next step"),
    mission_prefix="**Mission:** ",
    notice_template=(
        "[horizon: older past is condensed above; the full history lives in the journal "
        "window/{bee}-messages.jsonl and window/archive/]"),
    question_pointer="[… question cut here: the whole is in the journal, #{seq}]",
    from_offset="[… continued from character {offset}]",
    past_end="[nothing past this: the entry has {total} characters]",
    read_on="[… {left} more characters: {how}]",
    colon=":",
    cut_marker="[… {left} characters cut here: the whole is in the journal, #{seq}]",
)

LANGUAGES = {labels.language: labels for labels in (FRENCH, ENGLISH)}


def labels_for(language: str) -> Labels:
    return LANGUAGES[language]
