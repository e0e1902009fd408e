"""What people say in the eval's sessions (bench/memory.py), in English and in French.

An operator and a coding agent, written the way they talk: several phrasings for each kind
of fact, with the key words in different places, and not one of them taken from horizon.
The session generator (eval_session.py) draws from these pools at random for each seed.

Rules and their topics are parallel lists (the same index means the same rule in both
languages) so that a seed tells one story in two languages; every other pool is drawn from
freely. Placeholders: {t} and {u} tickets, {title}, {reason}, {version}, {branch}, {action},
{choice}, {old}, {new}, {a}, {b}, {why_a}, {why_b}, {subject}, {why}, {src}, {doc},
{symbol}, {cmd}, {name}, {suite}, {lint}, {docs}, {prefix}, {topic}, {pr}, {reason_cap}.

Chatter (what an operator types between real instructions: "ok", "lgtm", "vas-y") and the
runtime's nudges ("Continue from where you left off.") are kept apart: no chatter line is
a nudge, so a probe can tell which one a view shows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Words:
    # The operator ("apicultrice"): rules, tickets, requests, questions.
    rules: tuple[str, ...]
    replaced_rules: tuple[tuple[str, str], ...]  # (old, new): the new one says it replaces
    assign: tuple[str, ...]
    park: tuple[str, ...]  # {t} put aside for {u}
    resume: tuple[str, ...]
    close: tuple[str, ...]
    not_closed: tuple[str, ...]
    request: tuple[str, ...]  # the next thing to do: {action}
    what_next: tuple[str, ...]
    status: tuple[str, ...]
    chatter: tuple[str, ...]  # acknowledges, approves or nudges; says nothing new: {pr}
    approve: tuple[str, ...]  # a yes to the bee's offer
    settle: tuple[str, ...]  # picks one of the options the bee asked about: {choice}
    operator_reverse: tuple[str, ...]  # overrules the bee's decision: {old}, {new}, {subject}
    rule_topics: tuple[str, ...]  # parallel to rules: what a withdrawal calls the rule
    withdraw: tuple[str, ...]  # a rule withdrawn: {topic}
    reopen: tuple[str, ...]  # a closed ticket back in progress: {t}, {reason}
    # The runtime.
    nudges: tuple[str, ...]  # an orchestrator's turn when the bee stopped
    # The bee.
    ack_rule: tuple[str, ...]
    ack_repeat: tuple[str, ...]
    ack_request: tuple[str, ...]
    ack_close: tuple[str, ...]
    ack_not_closed: tuple[str, ...]
    ack_park: tuple[str, ...]
    step: tuple[str, ...]  # a stated next step: {action}
    actions: tuple[str, ...]  # {src}, {doc} or {symbol}: what names the step
    start: tuple[str, ...]
    bee_park: tuple[str, ...]
    bee_resume: tuple[str, ...]
    bee_close: tuple[str, ...]
    bee_not_closed: tuple[str, ...]
    decide: tuple[str, ...]
    reverse: tuple[str, ...]
    findings: tuple[str, ...]
    reproduced: tuple[str, ...]  # after a failing test run: {name}
    green: tuple[str, ...]  # after the fix passes
    outside: tuple[str, ...]  # a command failing for a reason outside the code: {cmd}
    block_reasons: tuple[str, ...]
    open_reasons: tuple[str, ...]  # why a ticket is not closed yet
    runtime_prompts: tuple[str, ...]  # what the runtime's scheduler says between turns
    ack_chatter: tuple[str, ...]
    ask_choice: tuple[str, ...]  # the bee asks the operator to pick: {a}, {b}, {subject}
    ack_settle: tuple[str, ...]  # {choice}
    ack_operator_reverse: tuple[str, ...]  # {old}, {new}
    ack_withdraw: tuple[str, ...]
    propose: tuple[str, ...]  # the bee offers to apply a change: {src}
    bee_reopen: tuple[str, ...]  # {t}, {reason}
    ack_reopen: tuple[str, ...]
    reopen_reasons: tuple[str, ...]
    wrapper_note: tuple[str, ...]  # after a wrapper passed: {cmd}


EN = Words(
    rules=(
        "Never push straight to {branch}: open a pull request, even for a one-line fix, and "
        "wait for CI to go green before you ask me to merge it.",
        "Before every commit, run {lint} and fix what it reports; I don't want to see lint "
        "fixes as separate commits in the review.",
        "Don't touch the migrations or the deploy scripts without asking me first. Those are "
        "shared with the ops team and a mistake there breaks things downstream.",
        "If a test is flaky, tell me and leave it alone: no retries in a loop, no skip "
        "markers added quietly to make the suite pass.",
        "Commit messages start with the ticket id, then a short imperative summary, like "
        "\"{prefix}-12: handle empty frames\". No emoji, no 'wip'.",
        "When you change a public function or a command-line flag, update {docs} in the same "
        "pull request, otherwise the docs team finds out from users.",
        "No new dependency without asking me. Check first whether the standard library or "
        "something we already ship does the job.",
        "Keep pull requests small: one ticket per branch, and refactoring goes in its own PR, "
        "never mixed with a fix.",
        "Run the whole suite with {suite} before you tell me something is done; one green "
        "test file is not enough.",
        "Secrets never go in the repo or in logs. Tokens come from the environment, and you "
        "redact them if a command prints them.",
        "Ask before deleting anything that isn't yours, stale branches and old fixtures "
        "included; someone may still be using them.",
        "Write the regression test first, watch it fail, then fix the code. I want to see the "
        "failing run in your notes.",
    ),
    replaced_rules=(
        ("Always squash-merge: one commit per pull request on {branch}, with the PR title as "
         "the commit message, so the history stays readable.",
         "Forget the squash-merge rule: from now on we rebase and merge, keeping each commit, "
         "because bisecting through squashed commits was useless."),
        ("Write the changelog entry in CHANGELOG.md by hand for every ticket you close, under "
         "the Unreleased heading, one line per ticket.",
         "This replaces my earlier rule about CHANGELOG.md: stop editing it by hand, put a "
         "changelog: line in the PR description and the release script collects it."),
        ("Work on a branch named after the ticket, like {prefix}-12-short-name, and delete it "
         "once it is merged, so the list of branches stays short.",
         "New branch naming, replacing the old one: your name then the ticket, like "
         "bot/{prefix}-12, so CI can tell your branches from ours."),
        ("Tag me for review on every pull request, however small, and wait for my approval "
         "before merging anything.",
         "Change to the review rule I gave you earlier: small fixes under fifty lines can be "
         "merged once CI is green, no need to wait for me anymore."),
    ),
    assign=(
        "Can you pick up {t}? {title_cap}.",
        "New one for you: {t}, {title}.",
        "{t} is yours: {title}. It's blocking the release.",
        "Please take {t} next ({title}).",
        "I've assigned you {t}: {title}.",
        "Start on {t} when you can. Users report that {title}.",
        "please take {t}",
        "can you pick up {t} next",
        "{t} next, please.",
        "grab {t} when you're free",
        "take {t} after this one",
    ),
    park=(
        "{t} can wait. Park it and take {u} first: {title}.",
        "Put {t} on hold, {u} is more urgent: {title}.",
        "Pause {t} for now. {u} just came in and it's worse: {title}.",
        "Stop {t} for a moment and look at {u}: {title}.",
        "Leave {t} where it is; {u} comes first ({title}).",
    ),
    resume=(
        "Back to {t} now, please.",
        "You can pick {t} up again.",
        "{t} is unblocked, go ahead with it.",
        "Resume {t} where you left it.",
        "Let's get {t} finished now.",
    ),
    close=(
        "Merged {t}, thanks!",
        "{t} is done, nice work.",
        "Closing {t}: it shipped in {version}.",
        "I merged the PR for {t}, you can drop it.",
        "{t} looks good and it's merged.",
        "{t}: merged and deployed.",
    ),
    not_closed=(
        "{t} is not done yet, {reason}.",
        "Don't close {t} yet: {reason}.",
        "{t} still not merged, {reason}.",
        "Hold on, {t} isn't fixed: {reason}.",
        "{t} can't be closed yet; {reason}.",
    ),
    request=(
        "When you're done there, {action}.",
        "Could you {action} next?",
        "Next, please {action}.",
        "I'd like you to {action} before anything else.",
        "After that, {action}; it has been bothering me for a while.",
        "Can you {action} once this is green?",
        "Your next job: {action}.",
    ),
    what_next=("What's next?", "OK, what now?", "What are you doing next?", "Where are you at?",
               "And after that?"),
    status=("How's {t} going?", "Any news on {t}?", "Is {t} close?", "Where are we with {t}?",
            "Is CI happy with {t}?"),
    chatter=("ok", "ok, keep going", "go on", "lgtm", "LGTM 👍", "yep", "sounds good",
             "nice", "great, carry on", "perfect", "thanks", "cool", "ok thanks", "👍",
             "fine by me", "looks good to me", "alright, next", "good catch", "k",
             "Applied #{pr}, looks good", "just tried #{pr} locally, works",
             "ok, that's what I'd have done", "yes, that's it"),
    approve=("yes, apply it", "go ahead", "do it", "yes please", "sure, apply it", "ok, apply",
             "yep, go for it", "Fine, apply it."),
    settle=("Fine, {choice} it is.", "{choice}.", "Go with {choice}.", "{choice}, please.",
            "Let's do {choice}.", "{choice}, less risky.", "ok {choice}", "Hmm, {choice} I think."),
    operator_reverse=("No, use {new} instead.", "Actually let's keep {new}.",
                      "Hmm, no: {new}, not {old}.", "I'd rather we go with {new} for {subject}.",
                      "Not {old}. {new}, please.", "Let's switch {subject} to {new} after all.",
                      "Change of mind on {subject}: {new}.", "no, {new}"),
    rule_topics=("pushing to {branch}", "running the linter before each commit",
                 "the migrations and deploy scripts", "flaky tests", "commit messages",
                 "updating {docs}", "new dependencies", "small pull requests",
                 "running the whole suite", "secrets", "asking before deleting",
                 "writing the regression test first"),
    withdraw=("Forget the rule about {topic}, it doesn't matter anymore.",
              "You can drop the rule on {topic} from now on.",
              "Scrap what I said about {topic}.",
              "The rule on {topic} is lifted, ignore it from now on.",
              "No need to follow my rule about {topic} anymore.",
              "About {topic}: forget that rule, we changed how we work."),
    reopen=("reopening {t}: {reason}.", "{t} is back to in progress, {reason}.",
            "FYI {t} moved from Done to In Progress: {reason}.",
            "I had to reopen {t}, {reason}.",
            "{t} is not done after all, {reason}; reopened it.",
            "Reopened {t}. {reason_cap}."),
    nudges=("Continue with the task.", "Continue from where you left off.",
            "Please continue with the current task.", "Resume the task you were working on.",
            "You were interrupted. Continue from where you left off.",
            "Continue working on the current ticket."),
    ack_rule=("Understood.", "Noted; that's how I've been working.", "Got it.", "OK, noted.",
              "Makes sense, noted.", "Understood, nothing I've done so far goes against it."),
    ack_repeat=("Yes, still following it.", "Still the case, no worries.",
                "Yes, I haven't forgotten.", "Right, as before.", "Yes, noted already."),
    ack_request=("Sure.", "OK, noted.", "Will do, right after this.", "Yes, makes sense.",
                 "Sure thing."),
    ack_close=("Thanks!", "Great, thanks for the review.", "Thanks, deleting the branch.",
               "Good to hear."),
    ack_not_closed=("Right, keeping it open.", "OK, I'm keeping it open.", "Understood.",
                    "Noted, it stays open."),
    ack_park=("OK, {t} is parked.", "Sure, parking {t}.", "Understood, {t} waits."),
    step=(
        "Next step: {action}.",
        "Next I'll {action}.",
        "Now let me {action}.",
        "Plan: {action}, then run the suite again.",
        "I'm going to {action} now.",
        "Then I will {action}.",
        "Up next: {action}.",
        "Let me {action} next.",
        "My next move is to {action}.",
        "What I'll do now: {action}.",
        "Going to {action} next.",
        "Next, I need to {action}.",
    ),
    actions=(
        "wire the fix into {src}",
        "read {src} to see where the buffer gets flushed",
        "add a regression test for {symbol}",
        "split {symbol} into two smaller functions",
        "update {doc} with the new behaviour",
        "check how {symbol} handles an empty input",
        "clean up the error handling in {src}",
        "move the retry logic out of {src}",
        "rename {symbol} so the call sites read better",
        "look at the callers of {symbol}",
        "write the migration notes in {doc}",
        "profile {symbol} on the big fixture",
    ),
    start=(
        "Starting on {t}: {title}.",
        "Picking up {t} myself: {title}.",
        "I'm taking {t} now ({title}).",
        "Opening work on {t}: {title}.",
        "{t} is the oldest in the backlog, starting it: {title}.",
        "Taking {t} from the backlog: {title}.",
    ),
    bee_park=(
        "Parking {t}: {reason}. Switching to {u} ({title}).",
        "{t} is blocked ({reason}), so I'm putting it aside and starting {u}: {title}.",
        "Putting {t} on hold: {reason}. Starting on {u} instead, {title}.",
        "Setting {t} aside, {reason}. Meanwhile I'm taking {u}: {title}.",
        "{t} has to wait because {reason}; switching to {u}: {title}.",
    ),
    bee_resume=("Back on {t}.", "Resuming {t} where I left it.",
                "Picking {t} up again now that it's unblocked.", "Returning to {t}.",
                "{t} again: the blocker is gone."),
    bee_close=(
        "{t} is done: the PR is merged and CI is green.",
        "Closing {t}, merged into {branch}.",
        "{t} shipped in {version}.",
        "Merged. That wraps up {t}.",
        "Done with {t}: fix merged, issue closed.",
        "Fixed {t}; the PR is merged.",
    ),
    bee_not_closed=(
        "{t} is not fixed yet: {reason}.",
        "Not closing {t} yet, {reason}.",
        "{t} still isn't merged: {reason}.",
        "I can't call {t} done: {reason}.",
        "{t} isn't finished, {reason}.",
    ),
    decide=(
        "I'll use {choice} for {subject}: {why}.",
        "Decision: {choice} for {subject}, {why}.",
        "Settled: we go with {choice} for {subject}, since {why}.",
        "I've decided on {choice} for {subject}: {why}.",
        "{choice} it is for {subject}; {why}.",
        "For {subject}, we use {choice} from now on: {why}.",
        "Going with {choice} for {subject} ({why}).",
        "After comparing the options, {subject} will be {choice}: {why}.",
    ),
    reverse=(
        "Change of plan: {subject} moves to {new} instead of {old}, because {why}.",
        "I'm reversing the earlier call on {subject}: {new}, not {old}, since {why}.",
        "Scratch {old} for {subject}; we switch to {new} since {why}.",
        "On reflection {old} was the wrong pick for {subject}. Switching to {new}: {why}.",
        "Replacing {old} with {new} for {subject} ({why}).",
        "New decision for {subject}: {new}, because {why}.",
    ),
    findings=(
        "Found it: {symbol} in {src} swallows the error and returns an empty result.",
        "The failure comes from {symbol}: it assumes the input is already sorted.",
        "{src} builds the timestamp from local time, which explains the one-hour shift.",
        "The test was right; {symbol} has an off-by-one on the last element.",
        "{symbol} is only called from {src}, so the change stays contained.",
        "Reproduced locally. The bug is in {symbol}, not in the caller.",
        "{symbol} retries forever when the connection drops; that matches the logs.",
        "The diff is small: two lines in {src} and the new test.",
    ),
    reproduced=("{name} fails, as expected: the bug reproduces.",
                "Good, {name} is red. That's the bug.",
                "The new test {name} fails the way the report describes.",
                "{name} fails. Reproduced."),
    green=("Green.", "That passes now.", "All good on that one.", "Passing.",
           "The run is clean."),
    outside=("{cmd} fails here: {reason}. That's outside the code, I'm leaving it to you.",
             "Can't get {cmd} through from this machine ({reason}). You'll have to run it.",
             "{cmd} is refused: {reason}. Nothing I can change in the repo for that."),
    block_reasons=("the upstream fix is not released yet",
                   "I need the ops team to open the firewall",
                   "the fixture data from the client hasn't arrived",
                   "the design question is with the product owner"),
    open_reasons=("CI is still running on the branch", "the review has two open comments",
                  "the fix only covers half of the cases", "QA found a regression on staging",
                  "the pipeline on main is red"),
    runtime_prompts=("", "Continue.", "Keep going.", "Go on with the current task."),
    ack_chatter=("Continuing.", "On it.", "Thanks.", "Carrying on.", "OK.", "Will do."),
    ask_choice=("For {subject}: {a} or {b}? {a} because {why_a}; {b} because {why_b}.",
                "Quick question before I go on: {a} or {b} for {subject}?",
                "{a} or {b}? That's the open point on {subject}.",
                "I need a call on {subject}: {a} ({why_a}) or {b} ({why_b})?",
                "Which one do you want for {subject}, {a} or {b}?"),
    ack_settle=("OK.", "On it.", "Right, doing that.", "Understood.", "{choice} then.",
                "Good, going that way."),
    ack_operator_reverse=("OK, switching to {new}.", "Right, {new} then.",
                          "Understood, changing it.", "OK.",
                          "Fair enough, undoing the {old} part."),
    ack_withdraw=("OK, dropping it.", "Noted, I'll stop doing that.", "Understood.",
                  "Good to know, thanks."),
    propose=("The same bug is in {src}. Want me to apply the fix there too?",
             "I can apply this patch to {src} as well. Shall I?",
             "Should I apply the change to {src} now?",
             "{src} has the same pattern. Apply the fix there?"),
    bee_reopen=("Reopening {t}: {reason}.", "{t} goes back to in progress, {reason}.",
                "{t} has to be reopened: {reason}."),
    ack_reopen=("OK, back on it.", "On it.", "Right, looking again.", "Understood."),
    reopen_reasons=("the fix breaks on staging", "QA found another case",
                    "the bug is back in production", "the customer still sees it",
                    "the nightly run failed again"),
    wrapper_note=("{cmd} passes.", "{cmd} is green now.", "Clean: {cmd} went through.",
                  "{cmd} is happy."),
)

FR = Words(
    rules=(
        "Ne pousse jamais directement sur {branch} : ouvre une pull request, même pour une "
        "ligne, et attends que la CI soit verte avant de me demander de fusionner.",
        "Avant chaque commit, lance {lint} et corrige ce qu'il remonte ; je ne veux pas voir "
        "de commits de lint à part dans la revue.",
        "Ne touche pas aux migrations ni aux scripts de déploiement sans me demander. C'est "
        "partagé avec l'équipe ops et une erreur là-dedans casse tout en aval.",
        "Si un test est instable, dis-le-moi et n'y touche pas : pas de relance en boucle, "
        "pas de marqueur skip ajouté en douce pour faire passer la suite.",
        "Les messages de commit commencent par l'identifiant du ticket, puis un résumé court "
        "à l'impératif, comme « {prefix}-12: handle empty frames ». Pas d'emoji.",
        "Quand tu changes une fonction publique ou une option de la ligne de commande, mets "
        "à jour {docs} dans la même pull request, sinon l'équipe doc l'apprend par les "
        "utilisateurs.",
        "Aucune nouvelle dépendance sans me demander. Vérifie d'abord si la bibliothèque "
        "standard ou quelque chose qu'on embarque déjà fait l'affaire.",
        "Des pull requests petites : un ticket par branche, et le refactoring dans sa propre "
        "PR, jamais mélangé avec un correctif.",
        "Lance toute la suite avec {suite} avant de me dire que c'est fini ; un seul fichier "
        "de test au vert ne suffit pas.",
        "Jamais de secret dans le dépôt ni dans les logs. Les jetons viennent de "
        "l'environnement, et tu les masques si une commande les affiche.",
        "Demande avant de supprimer ce qui n'est pas à toi, branches périmées et vieilles "
        "fixtures comprises ; quelqu'un s'en sert peut-être encore.",
        "Écris d'abord le test de non-régression, regarde-le échouer, puis corrige le code. "
        "Je veux voir l'exécution en échec dans tes notes.",
    ),
    replaced_rules=(
        ("Fusionne toujours en squash : un seul commit par pull request sur {branch}, avec le "
         "titre de la PR comme message, pour garder un historique lisible.",
         "Oublie la règle du squash : désormais on fait rebase puis merge en gardant chaque "
         "commit, parce que bisecter dans des commits écrasés ne servait à rien."),
        ("Écris à la main l'entrée de CHANGELOG.md pour chaque ticket fermé, sous le titre "
         "Unreleased, une ligne par ticket.",
         "Ceci remplace ma règle sur CHANGELOG.md : ne l'édite plus à la main, mets une ligne "
         "changelog: dans la description de la PR et le script de release la récupère."),
        ("Travaille sur une branche nommée d'après le ticket, comme {prefix}-12-nom-court, et "
         "supprime-la une fois fusionnée.",
         "Nouveau nommage des branches, à la place de l'ancien : ton nom puis le ticket, comme "
         "bot/{prefix}-12, pour que la CI distingue tes branches des nôtres."),
        ("Demande-moi une revue sur chaque pull request, même minuscule, et attends mon "
         "accord avant de fusionner quoi que ce soit.",
         "Changement de la règle de revue que je t'avais donnée : les petits correctifs de "
         "moins de cinquante lignes se fusionnent dès que la CI est verte, sans m'attendre."),
    ),
    assign=(
        "Tu peux prendre {t} ? {title_cap}.",
        "Nouveau ticket pour toi : {t}, {title}.",
        "{t} est pour toi : {title}. Ça bloque la release.",
        "Prends {t} ensuite ({title}).",
        "Je t'ai assigné {t} : {title}.",
        "Attaque {t} dès que tu peux. Les utilisateurs signalent que {title}.",
        "prends {t} stp",
        "tu peux prendre {t} ensuite ?",
        "{t} ensuite, stp.",
        "attaque {t} après ça",
        "tu enchaînes sur {t} ?",
    ),
    park=(
        "{t} peut attendre. Mets-le de côté et prends {u} d'abord : {title}.",
        "Mets {t} en pause, {u} est plus urgent : {title}.",
        "Suspends {t} pour l'instant. {u} vient d'arriver et c'est pire : {title}.",
        "Arrête {t} un moment et regarde {u} : {title}.",
        "Laisse {t} où il en est ; {u} passe avant ({title}).",
    ),
    resume=(
        "Reviens sur {t} maintenant, s'il te plaît.",
        "Tu peux reprendre {t}.",
        "{t} est débloqué, vas-y.",
        "Reprends {t} là où tu l'avais laissé.",
        "On termine {t} maintenant.",
    ),
    close=(
        "{t} est mergé, merci !",
        "C'est livré pour {t}, bravo.",
        "Je ferme {t}, c'est parti dans la {version}.",
        "{t} : fermé, merci.",
        "J'ai fusionné la PR de {t}, tu peux le lâcher.",
        "{t} est terminé et déployé.",
    ),
    not_closed=(
        "{t} n'est pas encore livré, {reason}.",
        "Ne ferme pas {t} maintenant : {reason}.",
        "{t} pas encore fusionné, {reason}.",
        "Attends, {t} n'est pas corrigé : {reason}.",
        "On ne peut pas encore fermer {t} ; {reason}.",
    ),
    request=(
        "Quand tu as fini, il faudrait {action}.",
        "Tu peux {action} ensuite ?",
        "Ensuite, merci de {action}.",
        "J'aimerais que tu commences par {action}, avant tout le reste.",
        "Après ça, pense à {action}, ça traîne depuis longtemps.",
        "Une fois que c'est vert, tu pourras {action} ?",
        "Prochaine chose à faire pour toi : {action}.",
    ),
    what_next=("Et maintenant ?", "C'est quoi la suite ?", "Tu fais quoi ensuite ?",
               "Tu en es où ?", "Et après ?"),
    status=("Ça avance, {t} ?", "Des nouvelles de {t} ?", "{t}, c'est bientôt bon ?",
            "On en est où sur {t} ?", "La CI est contente pour {t} ?"),
    chatter=("ok", "d'accord, continue", "vas-y", "parfait", "ça marche", "nickel",
             "top, continue", "oui", "ok merci", "super", "bien vu", "ça me va", "👍",
             "très bien, enchaîne", "ok, on continue", "merci", "impec",
             "J'ai appliqué #{pr}, ça a l'air bon", "testé #{pr} en local, ça marche",
             "oui c'est ça", "d'acc"),
    approve=("oui, applique", "vas-y", "fais-le", "oui stp", "ok, applique", "go",
             "oui, vas-y", "D'accord, applique-le."),
    settle=("Va pour {choice}.", "{choice}.", "Prends {choice}.", "{choice}, stp.",
            "Partons sur {choice}.", "OK pour {choice}.", "Plutôt {choice}, je pense.",
            "{choice}, c'est moins risqué."),
    operator_reverse=("Non, prends plutôt {new}.", "non, garde {new}",
                      "Finalement, on part sur {new} pour {subject}.", "Pas {old} : {new}, stp.",
                      "Je préfère {new} pour {subject}.", "Reviens à {new} pour {subject}.",
                      "non, {new}", "Hmm, non : {new}, pas {old}."),
    rule_topics=("les push sur {branch}", "le lint avant chaque commit",
                 "les migrations et les scripts de déploiement", "les tests instables",
                 "les messages de commit", "la mise à jour de {docs}",
                 "les nouvelles dépendances", "les petites pull requests",
                 "la suite complète", "les secrets", "les suppressions",
                 "le test de non-régression écrit d'abord"),
    withdraw=("tu peux oublier la règle sur {topic}.",
              "Oublie ce que je t'ai dit sur {topic}, ça ne tient plus.",
              "La règle sur {topic}, c'est terminé : ignore-la.",
              "Plus besoin de suivre ma règle sur {topic}.",
              "Laisse tomber la règle sur {topic}, on a changé de façon de faire.",
              "Pour {topic}, oublie la règle d'avant."),
    reopen=("je rouvre {t} : {reason}.", "{t} est repassé en cours, {reason}.",
            "Pour info, {t} moved from Done to In Progress : {reason}.",
            "J'ai dû rouvrir {t}, {reason}.",
            "{t} n'est finalement pas fini, {reason} ; je l'ai rouvert.",
            "{t} rouvert. {reason_cap}."),
    nudges=("Reprends la tâche en cours.", "Continue là où tu t'étais arrêté.",
            "Poursuis la tâche en cours.", "Tu as été interrompu : reprends où tu en étais.",
            "Continue le travail sur le ticket en cours.",
            "Reprends là où tu en étais, s'il te plaît."),
    ack_rule=("Compris.", "C'est noté ; c'est déjà comme ça que je travaille.", "D'accord, noté.",
              "OK, c'est noté.", "Bien reçu.", "Entendu, rien de ce que j'ai fait ne va contre."),
    ack_repeat=("Oui, toujours respecté.", "Toujours d'actualité, pas d'inquiétude.",
                "Oui, je n'ai pas oublié.", "Oui, comme avant.", "Oui, c'est déjà noté."),
    ack_request=("D'accord.", "OK, noté.", "Ça marche, juste après ça.", "Oui, ça se tient.",
                 "Entendu."),
    ack_close=("Merci !", "Super, merci pour la revue.", "Merci, je supprime la branche.",
               "Bonne nouvelle."),
    ack_not_closed=("D'accord, je le laisse ouvert.", "OK, il reste ouvert.", "Entendu.",
                    "Noté, il reste ouvert."),
    ack_park=("OK, {t} est en pause.", "D'accord, je mets {t} de côté.", "Entendu, {t} attend."),
    step=(
        "Prochaine étape : {action}.",
        "Je vais maintenant {action}.",
        "Ensuite, je vais {action}.",
        "Maintenant, il me reste à {action}.",
        "Plan : {action}, puis relancer la suite.",
        "Étape suivante : {action}.",
        "Je compte {action} juste après.",
        "À faire maintenant : {action}.",
        "Je vais {action} tout de suite.",
        "La suite pour moi : {action}.",
        "Maintenant, je m'occupe de {action}.",
    ),
    actions=(
        "brancher le correctif dans {src}",
        "relire {src} pour voir où le tampon est vidé",
        "ajouter un test de non-régression pour {symbol}",
        "découper {symbol} en deux fonctions plus petites",
        "mettre à jour {doc} avec le nouveau comportement",
        "vérifier comment {symbol} gère une entrée vide",
        "nettoyer la gestion d'erreurs dans {src}",
        "sortir la logique de relance de {src}",
        "renommer {symbol} pour que les appels se lisent mieux",
        "regarder les appelants de {symbol}",
        "rédiger les notes de migration dans {doc}",
        "profiler {symbol} sur la grosse fixture",
    ),
    start=(
        "Je commence {t} : {title}.",
        "Je prends {t} moi-même : {title}.",
        "Je m'attaque à {t} ({title}).",
        "Je démarre {t} : {title}.",
        "{t} est le plus ancien du backlog, je le commence : {title}.",
        "Je sors {t} du backlog : {title}.",
    ),
    bee_park=(
        "Je mets {t} de côté : {reason}. Je passe à {u} ({title}).",
        "{t} est bloqué ({reason}), je le laisse et je démarre {u} : {title}.",
        "Pause sur {t} : {reason}. Je prends {u} en attendant : {title}.",
        "Je suspends {t}, {reason} ; j'attaque {u} : {title}.",
        "{t} attendra, {reason}. Je commence {u} : {title}.",
    ),
    bee_resume=("Je reprends {t}.", "Retour sur {t}, là où je l'avais laissé.",
                "Je me remets sur {t} maintenant qu'il est débloqué.", "De retour sur {t}.",
                "{t} de nouveau : le blocage est levé."),
    bee_close=(
        "{t} est terminé : la PR est mergée et la CI est verte.",
        "Je clos {t}, c'est fusionné dans {branch}.",
        "{t} livré dans la {version}.",
        "Mergé. {t} est bouclé.",
        "Fini pour {t} : correctif fusionné, ticket fermé.",
        "{t} corrigé et fusionné.",
    ),
    bee_not_closed=(
        "{t} n'est pas encore corrigé : {reason}.",
        "Je ne ferme pas {t} tout de suite : {reason}.",
        "{t} n'est toujours pas mergé : {reason}.",
        "Pas encore fini pour {t} : {reason}.",
        "{t} n'est pas terminé, {reason}.",
    ),
    decide=(
        "Je vais utiliser {choice} pour {subject} : {why}.",
        "Décision : {choice} pour {subject}, {why}.",
        "C'est tranché : on part sur {choice} pour {subject}, car {why}.",
        "J'ai choisi {choice} pour {subject} : {why}.",
        "Pour {subject}, ce sera {choice} ; {why}.",
        "On retient {choice} pour {subject} : {why}.",
        "Après comparaison, {choice} l'emporte pour {subject} : {why}.",
    ),
    reverse=(
        "Changement de cap : {subject} passe à {new} au lieu de {old}, car {why}.",
        "Je reviens sur le choix de {old} pour {subject} : ce sera {new}, car {why}.",
        "Finalement, {new} plutôt que {old} pour {subject}, parce que {why}.",
        "Abandon de {old} pour {subject} ; on bascule sur {new} : {why}.",
        "Tout bien réfléchi, {old} ne convient pas pour {subject}. Je le remplace par {new} : "
        "{why}.",
        "Nouvelle décision pour {subject} : {new}, parce que {why}.",
    ),
    findings=(
        "Trouvé : {symbol} dans {src} avale l'erreur et renvoie un résultat vide.",
        "L'échec vient de {symbol} : elle suppose une entrée déjà triée.",
        "{src} construit l'horodatage en heure locale, d'où le décalage d'une heure.",
        "Le test avait raison ; {symbol} se trompe d'un cran sur le dernier élément.",
        "{symbol} n'est appelée que depuis {src}, donc le changement reste circonscrit.",
        "Reproduit en local. Le bug est dans {symbol}, pas chez l'appelant.",
        "{symbol} relance à l'infini quand la connexion tombe ; ça colle avec les logs.",
        "Le diff est petit : deux lignes dans {src} et le nouveau test.",
    ),
    reproduced=("{name} échoue, comme prévu : le bug est reproduit.",
                "Bien, {name} est rouge. C'est le bug.",
                "Le nouveau test {name} échoue comme le décrit le signalement.",
                "{name} échoue. Reproduit."),
    green=("Vert.", "Ça passe maintenant.", "Tout bon de ce côté.", "Ça passe.",
           "L'exécution est propre."),
    outside=("{cmd} échoue ici : {reason}. Ça ne vient pas du code, je te le laisse.",
             "Impossible de faire passer {cmd} depuis cette machine ({reason}). Il faudra le "
             "lancer de ton côté.",
             "{cmd} est refusé : {reason}. Rien à changer dans le dépôt pour ça."),
    block_reasons=("le correctif en amont n'est pas encore publié",
                   "il faut que l'équipe ops ouvre le pare-feu",
                   "les données de test du client ne sont pas arrivées",
                   "la question de conception est chez le product owner"),
    open_reasons=("la CI tourne encore sur la branche", "la revue a deux commentaires ouverts",
                  "le correctif ne couvre que la moitié des cas",
                  "la QA a trouvé une régression en préprod", "la pipeline de main est rouge"),
    runtime_prompts=("", "Continue.", "Poursuis.", "Continue la tâche en cours."),
    ack_chatter=("Je continue.", "C'est parti.", "Merci.", "Je poursuis.", "OK.", "Ça marche."),
    ask_choice=("Pour {subject} : {a} ou {b} ? {a} parce que {why_a} ; {b} parce que {why_b}.",
                "Petite question avant de continuer : {a} ou {b} pour {subject} ?",
                "{a} ou {b} ? C'est le point ouvert sur {subject}.",
                "Il me faut ton avis sur {subject} : {a} ({why_a}) ou {b} ({why_b}) ?",
                "Tu veux lequel pour {subject}, {a} ou {b} ?"),
    ack_settle=("D'accord.", "C'est parti.", "Entendu.", "{choice}, alors.", "Je fais ça.",
                "Bien, je pars là-dessus."),
    ack_operator_reverse=("D'accord, je passe à {new}.", "Entendu, ce sera {new}.",
                          "OK, je change.", "D'accord.", "Soit, je défais la partie {old}."),
    ack_withdraw=("D'accord, j'arrête.", "Noté, je ne le fais plus.", "Entendu.",
                  "Bon à savoir, merci."),
    propose=("Le même bug est dans {src}. J'applique le correctif là aussi ?",
             "Je peux appliquer ce patch à {src} aussi. Je le fais ?",
             "J'applique le changement à {src} maintenant ?",
             "{src} a le même motif. J'y applique le correctif ?"),
    bee_reopen=("Je rouvre {t} : {reason}.", "{t} repasse en cours : {reason}.",
                "Il faut rouvrir {t} : {reason}."),
    ack_reopen=("D'accord, j'y retourne.", "Je regarde.", "Entendu, je reprends.", "Entendu."),
    reopen_reasons=("le correctif casse en préprod", "la QA a trouvé un autre cas",
                    "le bug est revenu en production", "le client le voit encore",
                    "le run de nuit a encore échoué"),
    wrapper_note=("{cmd} passe.", "{cmd} est vert maintenant.", "Propre : {cmd} est passé.",
                  "{cmd} ne dit plus rien."),
)

WORDS = {"en": EN, "fr": FR}
