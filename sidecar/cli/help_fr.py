"""The command line's help in French: every help text of :mod:`sidecar.cli.parser`'s tree
(and argparse's own words), keyed by its English as written there, the way gettext keys
a catalogue by its source strings — but a plain dict, no compiled ``.mo`` file and no
process-wide text domain (see :mod:`sidecar.cli.localized`).

One section per command. A text added to the parser without its French here fails
``tests/test_cli_help.py``, which builds the whole tree in both languages."""

from __future__ import annotations

from sidecar.cli.common import DEFAULT, DEFAULT_URL

#: argparse's own words (its ``gettext`` msgids) shown in a help.
ARGPARSE = {
    "positional arguments": "arguments positionnels",
    "options": "options",
    "show this help message and exit": "afficher cette aide et quitter",
    "show program's version number and exit": "afficher la version et quitter",
}

#: ``sidecar`` itself: its description and the list of its commands.
TOP = {
    "vtt-sidecar: the table's authority on dice and rules.":
        "vtt-sidecar : l'autorité de la table sur les dés et les règles.",
    "language of the help and of what is printed (default fr), here or after the "
    "command": "langue de l'aide et de ce qui est affiché (défaut fr), ici ou après la "
               "commande",
    "run the table server": "lancer le serveur de table",
    "list the plugins found, their rulesets and hooks":
        "lister les plugins trouvés, leurs jeux de règles et leurs hooks",
    "join a table, roll once, print the outcome":
        "rejoindre une table, lancer une fois, afficher le résultat",
    "decide an open roll (its roller, or a GM): take one of its choices":
        "décider un jet ouvert (son lanceur, ou un MJ) : prendre l'un de ses choix",
    "GM: players' own seats (each its token and link)":
        "MJ : les places des joueurs (chacune son jeton et son lien)",
    "characters and their sheets (GM; `list` for anyone)":
        "les personnages et leurs fiches (MJ ; `list` pour tous)",
    "GM: ask seats or characters for a roll (an opposed roll with --opposed, a "
    "cooperative one with --cooperative)":
        "MJ : demander un jet à des places ou des personnages (une opposition avec "
        "--opposed, un jet coopératif avec --cooperative)",
    "a seat: answer an ask (the asked roll; asks which one in a terminal when no id is "
    "given); a GM: answer a GM's NPC's side (--character)":
        "une place : répondre à une demande (le jet demandé ; sans identifiant, demande "
        "laquelle dans un terminal) ; un MJ : répondre pour un PNJ (--character)",
    "GM: game sessions": "MJ : les séances de jeu",
    "GM: order a scene's initiative from the characters' sheets":
        "MJ : ordonner l'initiative d'une scène d'après les fiches des personnages",
    "print a table's outcomes as they arrive":
        "afficher les résultats d'une table à mesure qu'ils arrivent",
    "print a table's past events (as your role may see them)":
        "afficher les événements passés d'une table (tels que votre rôle les voit)",
    "write a table's whole journal as JSON Lines (read from the journal file: "
    "everything, secret rolls included)":
        "écrire tout le journal d'une table en JSON Lines (lu dans le fichier journal : "
        "tout, jets secrets compris)",
    "write a table exported with `export --whole` into a journal file or Redis (the "
    "table must have no event there)":
        "écrire une table exportée avec `export --whole` dans un fichier journal ou "
        "Redis (la table n'y doit avoir aucun événement)",
    "exact odds of a roll, computed locally": "chances exactes d'un jet, calculées ici",
    "check verifiable dice: an export or a client's saved log (JSON Lines), after its "
    "epochs' reveal": "vérifier les dés vérifiables : un export ou le journal gardé par un "
                      "client (JSON Lines), une fois ses époques révélées",
    "GM: verifiable dice epochs": "MJ : les époques des dés vérifiables",
    "write a new plugin project (a ruleset or an extension), ready to pip install and "
    "test": "écrire un nouveau projet de plugin (un jeu de règles ou une extension), prêt "
            "à installer avec pip et à tester",
}

#: The options of every command that joins a table, and ``--locale``.
CLIENT = {
    f"server WebSocket URL (default {DEFAULT_URL}, or $SIDECAR_URL); several processes "
    "serving the same tables: repeat --url or separate with commas (tried in turn, "
    "resumed on a drop)":
        f"URL WebSocket du serveur (défaut {DEFAULT_URL}, ou $SIDECAR_URL) ; plusieurs "
        "processus servant les mêmes tables : répéter --url ou séparer par des virgules "
        "(essayées tour à tour, reprises après une coupure)",
    "table name (default demo)": "nom de la table (défaut demo)",
    "your display name (default $USER, else « MJ » for a GM, « joueur » otherwise, whatever "
    "--locale: a name is an identity)":
        "votre nom affiché (défaut $USER, sinon « MJ » pour un MJ, « joueur » pour les autres, "
        "quelle que soit --locale : un nom est une identité)",
    "default player": "défaut player",
    "default gm": "défaut gm",
    "default gm, else player (a seat's token: its own characters)":
        "défaut gm, sinon player (le jeton d'une place : ses propres personnages)",
    "default gm, else player (a seat's token: its own asks)":
        "défaut gm, sinon player (le jeton d'une place : ses propres demandes)",
    "default player; gm with --character (a GM answers an NPC's side)":
        "défaut player ; gm avec --character (un MJ répond pour un PNJ)",
    "default: player with --token, observer without":
        "défaut : player avec --token, observer sans",
    "GM or player token (or $SIDECAR_TOKEN)": "jeton de MJ ou de joueur (ou $SIDECAR_TOKEN)",
    "print raw JSON messages": "afficher les messages JSON bruts",
    "speak JSON text frames instead of MessagePack":
        "parler en trames texte JSON plutôt qu'en MessagePack",
    "language of what is printed (default %(default)s)":
        "langue de ce qui est affiché (défaut %(default)s)",
    "language of what is printed (default fr), here or after the sub-command":
        "langue de ce qui est affiché (défaut fr), ici ou après la sous-commande",
    "aim at this character (repeatable): the rules read its sheet and the dice change it "
    "(wounds, reserve); a GM's NPC too":
        "viser ce personnage (répétable) : les règles lisent sa fiche et les dés la "
        "changent (blessures, réserve) ; un PNJ du MJ aussi",
    "what is attempted": "ce qui est tenté",
    "physical dice faces, in order: 3,5,6": "faces des dés physiques, dans l'ordre : 3,5,6",
    "stop after N outcomes": "s'arrêter après N résultats",
    "also print who is at the table each time someone joins or leaves":
        "afficher aussi qui est à la table chaque fois que quelqu'un arrive ou part",
    "start after this seq": "commencer après ce seq",
    "also load every *.py of DIR as a plugin":
        "charger aussi chaque *.py de DOSSIER comme un plugin",
    "print JSON": "afficher du JSON",
    "the game (its ruleset: `sidecar plugins` lists them)":
        "le jeu (son jeu de règles : `sidecar plugins` les liste)",
    "the roll's params, typed by its ruleset: difficulty=3":
        "les paramètres du jet, typés par son jeu de règles : difficulty=3",
}

#: ``serve``: its groups and options.
SERVE = {
    "network": "réseau",
    "access": "accès",
    "dice": "dés",
    "journal": "journal",
    "plugins": "plugins",
    "limits and timeouts": "limites et délais",
    "speed": "vitesse",
    f"interface to listen on (default {DEFAULT.host}; 0.0.0.0 for the LAN)":
        f"interface d'écoute (défaut {DEFAULT.host} ; 0.0.0.0 pour le réseau local)",
    f"TCP port (default {DEFAULT.port})": f"port TCP (défaut {DEFAULT.port})",
    "TLS certificate chain (PEM): serve wss:// and the page over https:// (with "
    "--ssl-keyfile; needed by a Foundry behind HTTPS)":
        "chaîne de certificats TLS (PEM) : servir wss:// et la page en https:// (avec "
        "--ssl-keyfile ; il le faut à un Foundry derrière HTTPS)",
    "the private key (PEM) of --ssl-certfile": "la clé privée (PEM) de --ssl-certfile",
    "GM secret (or $SIDECAR_GM_TOKEN; unset: the one kept in --tokens-file, random the "
    "first time)": "secret du MJ (ou $SIDECAR_GM_TOKEN ; sinon : celui gardé dans "
                   "--tokens-file, tiré au hasard la première fois)",
    "player secret (or $SIDECAR_PLAYER_TOKEN; unset: as --gm-token)":
        "secret des joueurs (ou $SIDECAR_PLAYER_TOKEN ; sinon : comme --gm-token)",
    "where unset tokens are kept across restarts, mode 0600 (default: beside the journal, "
    "DB.tokens; none for --db :memory: or --store)":
        "où les jetons non donnés sont gardés d'un redémarrage à l'autre, mode 0600 "
        "(défaut : à côté du journal, DB.tokens ; aucun pour --db :memory: ou --store)",
    "how long an open roll waits for its roller's decision before taking its default "
    "(default: %(default)s)": "combien de temps un jet ouvert attend la décision de son "
                              "lanceur avant de prendre son défaut (défaut : %(default)s)",
    "the web page's address as players reach it, where seat links point (default: this "
    "server's address; on 0.0.0.0 this machine's LAN address)":
        "l'adresse de la page web telle que les joueurs l'atteignent, où mènent les liens "
        "des places (défaut : l'adresse de ce serveur ; sur 0.0.0.0 l'adresse de cette "
        "machine sur le réseau local)",
    "allow this browser origin too (repeatable); the server's own origin and localhost "
    "are always allowed": "accepter aussi cette origine de navigateur (répétable) ; "
                          "l'origine du serveur et localhost le sont toujours",
    "players may enter physical dice (GMs always may)":
        "les joueurs peuvent saisir des dés physiques (les MJ le peuvent toujours)",
    "provable: derived from a committed seed per table, revealed when its epoch ends, so "
    "anyone can check every face (the default); secure: the OS's random numbers alone, no "
    "proof (default: %(default)s)":
        "provable : tirés d'une graine engagée par table, révélée à la fin de son époque, "
        "si bien que chacun peut vérifier chaque face ; secure : le hasard du système "
        "seul, sans preuve (défaut : %(default)s)",
    "with --dice provable: a clean stop does not end (reveal) the tables' epochs":
        "avec --dice provable : un arrêt propre ne clôt pas (ne révèle pas) les époques "
        "des tables",
    f"SQLite journal of every table (default ./{DEFAULT.db}; :memory: forgets tables at "
    "stop)": f"journal SQLite de toutes les tables (défaut ./{DEFAULT.db} ; :memory: "
             "oublie les tables à l'arrêt)",
    "keep tables in Redis instead, shared by every sidecar serve pointed at it (pip "
    "install 'vtt-sidecar[redis]'; docs/DEPLOY.md); also unix:///PATH?db=N, rediss://; "
    "default $SIDECAR_STORE":
        "garder les tables dans Redis plutôt, partagées par chaque sidecar serve qui y "
        "pointe (pip install 'vtt-sidecar[redis]' ; docs/DEPLOY.md) ; aussi "
        "unix:///CHEMIN?db=N, rediss:// ; défaut $SIDECAR_STORE",
    "load every *.py of DIR as a plugin": "charger chaque *.py de DOSSIER comme un plugin",
    "do not load this plugin (repeatable)": "ne pas charger ce plugin (répétable)",
    f"deadline of a third-party hook call (default {DEFAULT.plugin_timeout:g}); 5 "
    "failures in 60 s disable a plugin for the rest of the run":
        f"délai d'un appel de hook d'un plugin tiers (défaut {DEFAULT.plugin_timeout:g}) ; "
        "5 échecs en 60 s désactivent un plugin jusqu'à l'arrêt",
    "run this third-party plugin inline, like the built-ins (faster; only for plugins "
    "you know never block; repeatable)":
        "exécuter ce plugin tiers en ligne, comme les intégrés (plus rapide ; seulement "
        "pour des plugins dont vous savez qu'ils ne bloquent jamais ; répétable)",
    "requests per second per connection, every frame counted, burst 2N (0 = off; default "
    f"{DEFAULT.rate_limit:g})": "requêtes par seconde et par connexion, chaque trame "
                                "comptée, rafale 2N (0 = aucune limite ; défaut "
                                f"{DEFAULT.rate_limit:g})",
    f"time a new connection has to send hello (default {DEFAULT.hello_timeout:g})":
        "temps qu'a une nouvelle connexion pour envoyer hello (défaut "
        f"{DEFAULT.hello_timeout:g})",
    "open tables this process holds (a table is open while someone sits at it); whoever "
    "would open one more is refused until one closes (default "
    f"{DEFAULT.max_tables:,}: an idle table of 5 costs about 94 KiB, its connections "
    "included, so a full server stays near 0.5 GiB; see docs/DEPLOY.md)":
        "tables ouvertes que ce processus tient (une table est ouverte tant que "
        "quelqu'un y est assis) ; qui en ouvrirait une de plus est refusé jusqu'à ce "
        f"qu'une ferme (défaut {DEFAULT.max_tables:_} : une table de 5 au repos coûte "
        "environ 94 Kio, connexions comprises, un serveur plein reste donc près de "
        "0,5 Gio ; voir docs/DEPLOY.md)".replace("_", " "),
    "what all tables together remember of their requests, to answer a repeated request "
    "id, in MiB as journaled (an event is held in about 4 times that): past a quarter of "
    "it the oldest events are let go of (their ids kept: a repeat reads the journal), "
    "past all of it the oldest ids (their tables then ask the journal about every "
    "request) (0 = no server-wide bound; "
    f"default {DEFAULT.max_remembered_total_bytes / 2**20:g}, about "
    f"{4 * DEFAULT.max_remembered_total_bytes / 2**20:g} MiB held)":
        "ce que toutes les tables ensemble retiennent de leurs requêtes, pour répondre à "
        "un identifiant de requête répété, en Mio tels que journalisés (un événement en "
        "tient environ 4 fois plus) : passé un quart, les plus vieux événements sont "
        "lâchés (leurs identifiants gardés : une répétition lit le journal), passé le "
        "tout, les plus vieux identifiants (leurs tables demandent alors au journal pour "
        "chaque requête) (0 = aucune borne pour le serveur ; défaut "
        f"{DEFAULT.max_remembered_total_bytes / 2**20:g}, environ "
        f"{4 * DEFAULT.max_remembered_total_bytes / 2**20:g} Mio tenus)",
    "observers per table, counted apart from players and GMs "
    f"(default {DEFAULT.max_observers})":
        "observateurs par table, comptés à part des joueurs et des MJ "
        f"(défaut {DEFAULT.max_observers})",
    "open connections one address may hold (0 = off; default "
    f"{DEFAULT.max_connections_per_address}; raise it behind a reverse proxy, where every "
    "client has the proxy's address)":
        "connexions ouvertes qu'une adresse peut tenir (0 = aucune limite ; défaut "
        f"{DEFAULT.max_connections_per_address} ; à relever derrière un proxy inverse, où "
        "chaque client a l'adresse du proxy)",
    "wrong tokens one address may send a minute before its joins are refused for a while "
    f"(0 = off; default {DEFAULT.max_failed_hellos:g})":
        "mauvais jetons qu'une adresse peut envoyer par minute avant que ses connexions "
        "soient refusées un moment (0 = aucune limite ; défaut "
        f"{DEFAULT.max_failed_hellos:g})",
    "event loop: asyncio's own (default), or uvloop, faster with many clients (pip "
    "install 'vtt-sidecar[fast]')":
        "boucle d'événements : celle d'asyncio (défaut), ou uvloop, plus rapide avec "
        "beaucoup de clients (pip install 'vtt-sidecar[fast]')",
    "how much the server logs (default %(default)s)":
        "ce que le serveur note dans ses logs (défaut %(default)s)",
    "table name used in the printed join details (default demo)":
        "nom de table des informations de connexion affichées (défaut demo)",
}

#: ``roll``, ``react``, ``seat``, ``sheet``, ``ask``, ``answer``, ``session``.
PLAY = {
    "a GM answers the side of this NPC of the ask (as it; the GM's role unless --role "
    "says otherwise)": "un MJ répond pour ce PNJ de la demande (en tant que lui ; rôle MJ "
                       "sauf --role contraire)",
    "an extension's per-roll setting, typed from its description (`sidecar plugins` "
    "lists them): combat.options=aim combat.zone=head; EXT=yes turns it on with its "
    "defaults (blank_botch=yes), EXT={json} gives them all":
        "un réglage d'extension pour ce jet, typé selon sa description (`sidecar plugins` "
        "les liste) : combat.options=viser combat.zone=tête ; EXT=oui l'active avec ses "
        "défauts (blank_botch=oui), EXT={json} les donne tous",
    "roll as this character: the roll spends from its sheet (a player: a character of "
    "your seat)": "lancer en tant que ce personnage : le jet dépense sur sa fiche (un "
                  "joueur : un personnage de sa place)",
    "an open roll: print its choices without asking which to take (asked only in a "
    "terminal)": "un jet ouvert : afficher ses choix sans demander lequel prendre (demandé "
                 "seulement dans un terminal)",
    "who sees the roll (default public): public everyone, gm the roller and the GMs, "
    "blind the GMs alone (the roller sees only that it was rolled), self the roller alone":
        "qui voit le jet (défaut public) : public tout le monde, gm le lanceur et les MJ, "
        "blind les MJ seuls (le lanceur voit seulement qu'il a été lancé), self le lanceur "
        "seul",
    "the open roll's id (its `roll`)": "l'identifiant du jet ouvert (son `roll`)",
    "the name of one of its choices": "le nom de l'un de ses choix",
    "physical dice for the faces the choice draws: 4 or 3,5":
        "dés physiques pour les faces que le choix tire : 4 ou 3,5",
    "give a player a seat; prints the join link and its QR code":
        "donner une place à un joueur ; affiche le lien pour rejoindre et son QR code",
    "remove a seat (its token stops working, its connections close)":
        "supprimer une place (son jeton cesse de marcher, ses connexions se ferment)",
    "give a seat a new token and link (a lost link)":
        "donner à une place un nouveau jeton et un nouveau lien (un lien perdu)",
    "the seats, who is online, their characters":
        "les places, qui est en ligne, leurs personnages",
    "the player's name at the table": "le nom du joueur à la table",
    "print the link without its QR code": "afficher le lien sans son QR code",
    "the character's name": "le nom du personnage",
    "what to add (+N) or take (-N), field by field: wounds=-1":
        "ce qu'il faut ajouter (+N) ou retirer (-N), champ par champ : wounds=-1",
    "turn: the counters of a turn; rest: those of a rest":
        "turn : les compteurs d'un tour ; rest : ceux d'un repos",
    "the game of the asked roll": "le jeu du jet demandé",
    "who sees the asked rolls (default public), as for roll":
        "qui voit les jets demandés (défaut public), comme pour roll",
    "the ask's id (`ask list` gives it)": "l'identifiant de la demande (`ask list` le donne)",
    "create a character or change some values":
        "créer un personnage ou changer des valeurs",
    "add to or take from integer fields (a journaled adjustment, undone by its opposite)":
        "ajouter à des champs entiers ou en retirer (un ajustement journalisé, annulé par "
        "son opposé)",
    "a new turn or a rest: counters back to their default":
        "un nouveau tour ou un repos : les compteurs reviennent à leur défaut",
    "delete a character (its events stay)": "supprimer un personnage (ses événements "
                                            "restent)",
    "the characters you may see (a seat: its own)":
        "les personnages que vous pouvez voir (une place : les siens)",
    "typed by the ruleset's sheet; a map entry as skills.Escalade=5 or the whole map as "
    "JSON; a reserve counted from its score (O'Ween's reserve_ecl, shown “2 / 3”) as "
    "the points lost: reserve_ecl=-1 for one lost, 0 for full":
        "typées par la fiche du jeu de règles ; une entrée d'un dictionnaire comme "
        "skills.Escalade=5, ou tout le dictionnaire en JSON ; une réserve comptée depuis "
        "son score (reserve_ecl d'O'Ween's, affichée « 2 / 3 ») en points perdus : "
        "reserve_ecl=-1 pour un point perdu, 0 pour pleine",
    "the character's ruleset (needed to create one)":
        "le jeu de règles du personnage (nécessaire pour en créer un)",
    "give the character to this seat": "donner le personnage à cette place",
    "the GM's own character (no seat)": "un personnage du MJ (sans place)",
    "why (kept in the journal)": "pourquoi (gardé dans le journal)",
    "default: every character of the table": "défaut : chaque personnage de la table",
    "ask for a roll: sidecar ask open Alice Ysolde --ruleset oweens "
    "characteristic=ECL difficulty=3": "demander un jet : sidecar ask open Alice Ysolde "
                                       "--ruleset oweens characteristic=ECL difficulty=3",
    "cancel an open ask": "annuler une demande ouverte",
    "the open asks and who answered (a seat: its own)":
        "les demandes ouvertes et qui a répondu (une place : les siennes)",
    "the seats or characters asked, and the roll's params":
        "les places ou personnages à qui l'on demande, et les paramètres du jet",
    "an opposed roll: the sides are compared when the last answers":
        "une opposition : les camps sont comparés quand le dernier répond",
    "a cooperative roll: every side rolls, only the best roll counts (two names at "
    "least)": "un jet coopératif : chaque camp lance, seul le meilleur jet compte (deux "
              "noms au moins)",
    "one side's own params (repeatable): --each Krull code=4D+1":
        "les paramètres propres à un camp (répétable) : --each Krull code=4D+1",
    "ask nothing, as roll's: several asks pending, list them; the asked roll left open, "
    "print its choices (asked only in a terminal)":
        "ne rien demander, comme pour roll : plusieurs demandes en attente, les lister ; "
        "le jet demandé laissé ouvert, afficher ses choix (demandé seulement dans un "
        "terminal)",
    "start a new game session (what lasts a session starts over)":
        "commencer une nouvelle séance de jeu (ce qui dure une séance repart à zéro)",
    "the scene's characters (of one ruleset)":
        "les personnages de la scène (d'un même jeu)",
    "this character's player spends to take the initiative (O'Ween's: 1 BB+); repeat for "
    "several":
        "le joueur de ce personnage dépense pour prendre l'initiative (O'Ween's : 1 BB+) ; "
        "répéter pour plusieurs",
    "this character has a relevant bagage (ties); repeat for several":
        "ce personnage a un bagage adéquat (départage les égalités) ; répéter pour "
        "plusieurs",
}

#: ``plugins``, ``export``, ``import``, ``odds``, ``verify``, ``epoch``, ``new-plugin``.
TOOLS = {
    "ask a running server instead (shows failures and disabled plugins); repeat or "
    "separate with commas for several":
        "demander plutôt à un serveur en marche (montre les échecs et les plugins "
        "désactivés) ; répéter ou séparer par des virgules pour plusieurs",
    "--url: the table joined, as an observer, to ask its server (default demo; one that "
    "is open, else give --token)":
        "--url : la table rejointe, en observateur, pour interroger son serveur (défaut "
        "demo ; une table ouverte, sinon donnez --token)",
    "a GM or player token (or $SIDECAR_TOKEN), needed when --table is not open yet":
        "un jeton de MJ ou de joueur (ou $SIDECAR_TOKEN), nécessaire quand --table n'est "
        "pas encore ouverte",
    f"default ./{DEFAULT.db}": f"défaut ./{DEFAULT.db}",
    "read the table from Redis instead of the journal file":
        "lire la table dans Redis plutôt que dans le fichier journal",
    "also the table's state, seats, characters and request ids: what `sidecar import` "
    "needs to move it to another store":
        "aussi l'état de la table, ses places, ses personnages et ses identifiants de "
        "requête : ce qu'il faut à `sidecar import` pour la déplacer ailleurs",
    "default: standard output": "défaut : la sortie standard",
    "the journal to write (no server running on it)":
        "le journal à écrire (sans serveur en marche dessus)",
    "write into Redis instead (servers may be running on it)":
        "écrire plutôt dans Redis (des serveurs peuvent y tourner)",
    "import under another name": "importer sous un autre nom",
    "the table to export": "la table à exporter",
    "a file written by `export --whole`": "un fichier écrit par `export --whole`",
    "an extension's per-roll setting, as for roll":
        "un réglage d'extension pour ce jet, comme pour roll",
    "at a table": "à une table",
    "asked of a running server instead (any of these): a table character's odds against "
    "its sheet as it stands now":
        "demandées plutôt à un serveur en marche (l'une de ces options) : les chances "
        "d'un personnage de la table avec sa fiche telle qu'elle est",
    "as this character: its dice, reserve and bagages from its live sheet (a player: a "
    "character of your seat)":
        "en tant que ce personnage : ses dés, sa réserve et ses bagages d'après sa fiche "
        "du moment (un joueur : un personnage de sa place)",
    f"server WebSocket URL (default {DEFAULT_URL}, or $SIDECAR_URL)":
        f"URL WebSocket du serveur (défaut {DEFAULT_URL}, ou $SIDECAR_URL)",
    "default player (a GM's character, or any as a GM: --role gm)":
        "défaut player (un personnage du MJ, ou n'importe lequel en MJ : --role gm)",
    "JSON Lines file ('-': standard input)": "fichier JSON Lines ('-' : l'entrée standard)",
    "do not re-run the installed rulesets on the faces":
        "ne pas rejouer les jeux de règles installés sur les faces",
    "also load the plugins of DIR, as `serve --plugins-dir` did":
        "charger aussi les plugins de DOSSIER, comme l'a fait `serve --plugins-dir`",
    "a player's own saved log: every event of it must be in the export as she received "
    "it (repeatable)": "le journal gardé par un joueur : chacun de ses événements doit "
                       "être dans l'export tel qu'il l'a reçu (répétable)",
    "end the current epoch: reveal its seed (every roll of it becomes checkable) and "
    "commit to a new one": "clore l'époque en cours : révéler sa graine (chacun de ses "
                           "jets devient vérifiable) et s'engager sur une nouvelle",
    "the plugin's name, e.g. pbta-moves": "le nom du plugin, par exemple pbta-moves",
    "what it is (default: asked in a terminal, else ruleset)":
        "ce qu'il est (défaut : demandé dans un terminal, sinon ruleset)",
    "where to write it (default: ./NAME; must not exist)":
        "où l'écrire (défaut : ./NOM ; ne doit pas exister)",
}

#: Every text above, English → French.
FRENCH: dict[str, str] = {**ARGPARSE, **TOP, **CLIENT, **SERVE, **PLAY, **TOOLS}

#: argparse's error messages (its ``gettext`` msgids, with their ``%`` placeholders in
#: the same order in French): matched whole against the message argparse formatted.
ERRORS = {
    "argument %(argument_name)s: %(message)s": "argument %(argument_name)s : %(message)s",
    "the following arguments are required: %s": "arguments obligatoires manquants : %s",
    "unrecognized arguments: %s": "arguments non reconnus : %s",
    "invalid %(type)s value: %(value)r": "valeur invalide, %(type)s attendu : %(value)r",
    "invalid choice: %(value)r (choose from %(choices)s)":
        "choix invalide : %(value)r (au choix : %(choices)s)",
    "expected one argument": "une valeur attendue",
    "expected at most one argument": "une valeur au plus attendue",
    "expected at least one argument": "une valeur au moins attendue",
    "expected %s argument": "%s valeur attendue",
    "expected %s arguments": "%s valeurs attendues",
    "not allowed with argument %s": "incompatible avec l'argument %s",
    "one of the arguments %s is required": "l'un des arguments %s est obligatoire",
    "ambiguous option: %(option)s could match %(matches)s":
        "option ambiguë : %(option)s peut être %(matches)s",
    "ignored explicit argument %r": "argument explicite ignoré : %r",
}

#: The placeholders a help shows (``NAME``, ``--table``'s ``TABLE``: an option's or a
#: positional's metavar, else its dest), in French; the ones French shares (URL, PORT,
#: TABLE, N) are left as they are.
METAVARS = {
    "AFTER": "APRÈS", "ASK_ID": "ID_DEMANDE", "CHARACTER": "PERSONNAGE", "CHOICE": "CHOIX",
    "COUNT": "NOMBRE", "DICE": "DÉS", "DIR": "DOSSIER", "EXT.KEY=VALUE": "EXT.CLÉ=VALEUR",
    "FILE": "FICHIER", "file": "fichier", "GM_TOKEN": "JETON_MJ", "HOST": "HÔTE",
    "LABEL": "LIBELLÉ", "MIB": "MIO", "NAME": "NOM", "NAME key=value": "NOM clé=valeur",
    "NPC": "PNJ", "ORIGIN": "ORIGINE", "PATH": "CHEMIN", "PLAYER_TOKEN": "JETON_JOUEUR",
    "REASON": "RAISON", "ROLL": "JET", "RULESET": "JEU", "ruleset": "jeu", "SEAT": "PLACE",
    "SEAT_OR_CHARACTER|key=value": "PLACE_OU_PERSONNAGE|clé=valeur",
    "SECONDS": "SECONDES", "TOKEN": "JETON", "field=+N": "champ=+N",
    "field=value": "champ=valeur", "key=value": "clé=valeur",
    "redis://HOST:PORT/DB": "redis://HÔTE:PORT/BASE",
}

#: The types named by « invalid %(type)s value ».
TYPES = {"int": "nombre entier", "float": "nombre"}
