"""What the demo shows of the view a bee reads."""

from __future__ import annotations

from horizon.cli.demo_screen import MEMORY_LINE, memory_of

VIEW = """<!-- horizon format=1 bee=mia mode=horizon up_to=19 at=2026-12-02T13:01:07Z -->
## Récit de soi
### Mission
> Composer la boutique en ligne de la fromagerie
### Décisions
### Erreurs
> - #15 make : error: la cible build a échoué
### Prochaine étape
> - #4 vérifier la page sur mobile """ + "très " * 30 + """

### #10 · 2026-12-02T13:01:05Z · conversation · de apicultrice · phare
Question :
> mia, garde le ton chaleureux
### #19 · 2026-12-02T13:01:07Z · tool · outil make
Réponse :
> ok
"""


def test_each_section_with_its_first_line_then_the_newest_entry() -> None:
    shown = memory_of(VIEW)
    assert shown[:3] == ("Mission: Composer la boutique en ligne de la fromagerie",
                         "Décisions: —", "Erreurs: #15 make : error: la cible build a échoué")
    assert shown[3].startswith("Prochaine étape: #4 vérifier") and shown[3].endswith("…")
    assert len(shown[3]) == len("Prochaine étape: ") + MEMORY_LINE
    assert shown[4:] == ("newest: #19 · 2026-12-02T13:01:07Z · tool · outil make",)


def test_a_view_not_written_yet_shows_nothing() -> None:
    assert memory_of("") == ()
