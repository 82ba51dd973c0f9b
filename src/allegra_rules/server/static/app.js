// The page of the Allegra table server: create or join a table, then play it.
// It only ever reads the views the server sends (GET .../view and the WebSocket).
// The same page is the docs' play page (<html data-backend="browser">): there the
// table runs in this page, in Pyodide, and sends the same views (see "local" below).
"use strict";

const TEXT = {
  en: {
    title: "Allegra", language: "Language", newTable: "New table", players: "Players",
    rules: "Rules", maxTurns: "Turns per round (empty: no limit)", otherSeats: "The other seats",
    seatN: "Seat {n}", you: "you", person: "a person (invite by link)", random: "random bot", search: "search bot (stronger)",
    greedy: "greedy bot", create: "Create the table", joinTable: "Join the table",
    freeSeat: "Free seat {n}", botSeat: "Give seat {n} to a bot", creatorControls: "As the table's creator you can free a seat or give it to a bot.",
    takeSeat: "Take seat {n}", yourName: "Your name (optional, shown to everyone)", watch: "Just watch", invite: "Invite friends with this link:",
    copy: "Copy", copied: "Copied", drawPile: "Draw pile", discardPile: "Discard pile",
    held: "In hand", scores: "Scores", round: "Round {n}", total: "Total", cards: "{n} cards",
    noFreeSeat: "Every seat is taken; you can watch.", watching: "You are watching.",
    setupMe: "Turn up a card: click one of your face-down cards.",
    setupOther: "{who} turns up a card.",
    drawMe: "Your turn: draw from the draw pile or take the top of the discard pile.",
    drawOther: "{who} draws.",
    knockMe: "{who} drew the {v}. Knock to ask for it, or pass.",
    knockOther: "{who} drew the {v}; {p} may knock for it.",
    knockers: "Knocked so far: {list}.",
    holdDeckMe: "You hold the {v}: click a card of your zone to swap, or discard it.",
    holdDiscardMe: "You hold the {v}: click a card of your zone to swap it in.",
    flipMe: "Click one of your face-down cards to turn it up.",
    knockerSwapMe: "{who} gave you the {v}: click any card of your zone to swap it in.",
    takeMe: "Click a card in {who}'s area to take it.",
    holdTakenMe: "Click a card of your zone to swap in the card you took.",
    waiting: "Waiting for {who}.",
    over: "Game over: {list} won with {score}.",
    overTie: "Game over: {list} share the win with {score}.",
    record: "Download the game record",
    unknownTable: "There is no such table.", connectionLost: "Connection lost; reconnecting...",
    hidden: "hidden", lastTurn: "(last turn: {who} ended the round)",
    lastMoves: "Last moves", continue: "Continue", roundOver: "Round {n} is over: every card is turned up.",
    endedBy: "{who} turned up all their cards first and ended the round.",
    turnLimit: "The round reached its turn limit; nobody ended it, nobody is doubled.",
    doubled: "{who} did not have the lowest sum: {sum} counts double, {score}.",
    notDoubledLowest: "{who} had the lowest sum: not doubled.",
    notDoubledLow: "{who}'s sum {sum} is not above zero: not doubled.",
    zoneSum: "Zone sum", roundScore: "This round", removedTriple: "a triple, removed before counting",
    gap: "empty", badgeYou: "you", badgePerson: "person", badgeBot: "bot", badgeFree: "free",
    badgeStandIn: "bot stands in", badgeWaiting: "to move", seatsLabel: "Seats",
    freeSeatTurn: "{who} is still free: waiting for someone to take it (share the link).",
    offline: "Cannot reach the server; retrying…", refused: "The server refused this ({code}).",
    "search-easy": "search bot (easy)", policy: "learned bot (policy)",
    loading: "Loading the game into this page…", loadFailed: "The game could not be loaded in this page ({code}).",
    localNote: "You play here, in this page, against bots: nothing is sent anywhere.",
    refusedLocal: "The table refused this ({code}).", newGame: "New game",
    dealCommitted: "The deal is fixed: commitment", seedChosen: "The creator of this table chose the seed (so only one seat is for a person).",
    dealChecked: "The deal was fixed before the game: checked.", dealNoted: "(against the commitment this page noted when it joined)",
    dealServerOnly: "(this page did not see the table before the end: checked against the commitment the server shows)",
    dealMismatch: "WARNING: the revealed deal does NOT match the commitment shown at the start. The deal may have been changed during the game!",
    dealNoCrypto: "This browser cannot check the deal here (it needs https); use the command below.",
    dealNone: "This table was made before deals were committed: there is nothing to check.",
    dealVerify: "To check every move from the committed deal, download the record and run:",
    verifyTitle: "Check a game's deal and every move", verifying: "Checking the record in this page…", verifyOk: "Checked in this page:", verifyFailed: "Not verified:", verifyHere: "Check every move in your browser (the play page, nothing is sent):",
    // The table as players say it: seats, rule sets, the knock setting, the round's end.
    youName: "You", playerN: "Player {n}", greedyName: "Greedy bot", searchName: "Search bot",
    "search-easyName": "Search bot", policyName: "Learned bot", randomName: "Random bot",
    botN: "{name} {k}", otherSeat: "Seat of {name}",
    presetSeeds: "Standard (as in How to play)", presetDe: "The German rule text, word for word",
    presetPl: "The Polish rule text, word for word", presetFr: "The French rule text, word for word",
    presetPublished: "The published game", presetsLink: "What the rule sets change",
    askKnock: "Ask me only when the card could help me",
    drawnForYou: "Drawn for you from the draw pile: the {v} on the discard pile could not help you.",
    passedForYou: "Passed for you: the {v} {who} drew could not help you.",
    holdDeckKnockedMe: "You hold the {v}: click a card of your zone to swap, discard it, or give it to a knocker.",
    roundOverAll: "Round {n} is over: {who} turned up every card.",
    roundOverLimit: "Round {n} is over: it reached its turn limit.",
    heldBy: "In {who}'s hand", heldByMe: "In your hand",
    zoneOf: "The zone summed: {who}'s 12 cards and the neighbour's column beside them.",
  },
  de: {
    title: "Allegra", language: "Sprache", newTable: "Neuer Tisch", players: "Spieler",
    rules: "Regeln", maxTurns: "Züge pro Runde (leer: unbegrenzt)", otherSeats: "Die anderen Plätze",
    seatN: "Platz {n}", you: "du", person: "ein Mensch (per Link einladen)", random: "Zufalls-Bot", search: "Such-Bot (stärker)",
    greedy: "Gier-Bot", create: "Tisch eröffnen", joinTable: "Am Tisch Platz nehmen",
    freeSeat: "Platz {n} freigeben", botSeat: "Platz {n} einem Bot geben", creatorControls: "Du hast den Tisch eröffnet: Du kannst einen Platz freigeben oder einem Bot geben.",
    takeSeat: "Platz {n} nehmen", yourName: "Dein Name (freiwillig, für alle sichtbar)", watch: "Nur zuschauen", invite: "Lade Freunde mit diesem Link ein:",
    copy: "Kopieren", copied: "Kopiert", drawPile: "Nachziehstapel", discardPile: "Ablagestapel",
    held: "Auf der Hand", scores: "Punkte", round: "Runde {n}", total: "Summe", cards: "{n} Karten",
    noFreeSeat: "Alle Plätze sind besetzt; du kannst zuschauen.", watching: "Du schaust zu.",
    setupMe: "Decke eine Karte auf: klicke eine deiner verdeckten Karten an.",
    setupOther: "{who} deckt eine Karte auf.",
    drawMe: "Du bist dran: zieh vom Nachziehstapel oder nimm die oberste Karte des Ablagestapels.",
    drawOther: "{who} zieht.",
    knockMe: "{who} hat die {v} gezogen. Klopfe, um sie zu bekommen, oder passe.",
    knockOther: "{who} hat die {v} gezogen; {p} darf klopfen.",
    knockers: "Bisher geklopft: {list}.",
    holdDeckMe: "Du hältst die {v}: klicke eine Karte deines Bereichs zum Tauschen an oder leg sie ab.",
    holdDiscardMe: "Du hältst die {v}: klicke eine Karte deines Bereichs an, um sie einzutauschen.",
    flipMe: "Klicke eine deiner verdeckten Karten an, um sie aufzudecken.",
    knockerSwapMe: "{who} hat dir die {v} gegeben: klicke eine beliebige Karte deines Bereichs an, um sie einzutauschen.",
    takeMe: "Klicke eine Karte im Bereich von {who} an, um sie zu nehmen.",
    holdTakenMe: "Klicke eine Karte deines Bereichs an, um die genommene Karte einzutauschen.",
    waiting: "Warte auf {who}.",
    over: "Spielende: {list} gewinnt mit {score}.",
    overTie: "Spielende: {list} gewinnen gemeinsam mit {score}.",
    record: "Spielprotokoll herunterladen",
    unknownTable: "Diesen Tisch gibt es nicht.", connectionLost: "Verbindung verloren; verbinde neu …",
    hidden: "verdeckt", lastTurn: "(letzter Zug: {who} hat die Runde beendet)",
    lastMoves: "Letzte Züge", continue: "Weiter", roundOver: "Runde {n} ist vorbei: alle Karten sind aufgedeckt.",
    endedBy: "{who} hat als Erster alle Karten aufgedeckt und die Runde beendet.",
    turnLimit: "Die Runde hat ihre Zuggrenze erreicht; niemand hat sie beendet, niemand wird verdoppelt.",
    doubled: "{who} hatte nicht die niedrigste Summe: {sum} zählt doppelt, {score}.",
    notDoubledLowest: "{who} hatte die niedrigste Summe: nicht verdoppelt.",
    notDoubledLow: "Die Summe {sum} von {who} ist nicht größer als null: nicht verdoppelt.",
    zoneSum: "Summe des Bereichs", roundScore: "Diese Runde", removedTriple: "drei gleiche Karten, vor dem Zählen entfernt",
    gap: "leer", badgeYou: "du", badgePerson: "Mensch", badgeBot: "Bot", badgeFree: "frei",
    badgeStandIn: "Bot vertritt", badgeWaiting: "am Zug", seatsLabel: "Plätze",
    freeSeatTurn: "{who} ist noch frei: warte, bis jemand den Platz nimmt (teile den Link).",
    offline: "Der Server ist nicht erreichbar; neuer Versuch …", refused: "Der Server hat das abgelehnt ({code}).",
    "search-easy": "Such-Bot (leicht)", policy: "trainierter Bot (Strategie)",
    loading: "Das Spiel wird auf diese Seite geladen …", loadFailed: "Das Spiel ließ sich nicht auf dieser Seite laden ({code}).",
    localNote: "Du spielst hier, auf dieser Seite, gegen Bots: nichts wird irgendwohin gesendet.",
    refusedLocal: "Der Tisch hat das abgelehnt ({code}).", newGame: "Neue Partie",
    dealCommitted: "Die Verteilung steht fest: Festlegung", seedChosen: "Wer diesen Tisch eröffnet hat, hat den Seed gewählt (darum ist nur ein Platz für einen Menschen).",
    dealChecked: "Die Verteilung stand vor dem Spiel fest: geprüft.", dealNoted: "(gegen die Festlegung, die sich diese Seite beim Beitreten gemerkt hat)",
    dealServerOnly: "(diese Seite kannte den Tisch vor dem Ende nicht: geprüft gegen die Festlegung, die der Server zeigt)",
    dealMismatch: "WARNUNG: Die aufgedeckte Verteilung passt NICHT zur Festlegung vom Anfang. Die Karten könnten während des Spiels verändert worden sein!",
    dealNoCrypto: "Dieser Browser kann die Verteilung hier nicht prüfen (dazu braucht es https); nutze den Befehl unten.",
    dealNone: "Dieser Tisch stammt aus der Zeit vor den Festlegungen: es gibt nichts zu prüfen.",
    dealVerify: "Um jeden Zug ab der festgelegten Verteilung zu prüfen, lade das Protokoll herunter und führe aus:",
    verifyTitle: "Verteilung und jeden Zug einer Partie prüfen", verifying: "Das Protokoll wird auf dieser Seite geprüft…", verifyOk: "Auf dieser Seite geprüft:", verifyFailed: "Nicht bestätigt:", verifyHere: "Jeden Zug im Browser prüfen (die Spielseite, nichts wird gesendet):",
    youName: "Du", playerN: "Spieler {n}", greedyName: "Gier-Bot", searchName: "Such-Bot",
    "search-easyName": "Such-Bot", policyName: "Trainierter Bot", randomName: "Zufalls-Bot",
    botN: "{name} {k}", otherSeat: "Platz von {name}",
    presetSeeds: "Standard (wie in der Anleitung)", presetDe: "Der deutsche Regeltext, wörtlich",
    presetPl: "Der polnische Regeltext, wörtlich", presetFr: "Der französische Regeltext, wörtlich",
    presetPublished: "Das veröffentlichte Spiel", presetsLink: "Was die Regelsätze ändern",
    askKnock: "Frag mich nur, wenn mir die Karte helfen könnte",
    drawnForYou: "Für dich vom Nachziehstapel gezogen: die {v} auf dem Ablagestapel hätte dir nicht geholfen.",
    passedForYou: "Für dich gepasst: die {v}, die {who} gezogen hat, hätte dir nicht geholfen.",
    holdDeckKnockedMe: "Du hältst die {v}: klicke eine Karte deines Bereichs zum Tauschen an, leg sie ab oder gib sie einem, der geklopft hat.",
    roundOverAll: "Runde {n} ist vorbei: {who} hat alle Karten aufgedeckt.",
    roundOverLimit: "Runde {n} ist vorbei: sie hat ihre Zuggrenze erreicht.",
    heldBy: "In der Hand von {who}", heldByMe: "In deiner Hand",
    zoneOf: "Gezählt wird der Bereich: die 12 Karten von {who} und die Spalte des Nachbarn daneben.",
  },
  pl: {
    title: "Allegra", language: "Język", newTable: "Nowy stół", players: "Gracze",
    rules: "Zasady", maxTurns: "Tury na rundę (puste: bez limitu)", otherSeats: "Pozostałe miejsca",
    seatN: "Miejsce {n}", you: "ty", person: "człowiek (zaproś linkiem)", random: "bot losowy", search: "bot szukający (silniejszy)",
    greedy: "bot zachłanny", create: "Załóż stół", joinTable: "Dołącz do stołu",
    freeSeat: "Zwolnij miejsce {n}", botSeat: "Oddaj miejsce {n} botowi", creatorControls: "Jako zakładający stół możesz zwolnić miejsce albo oddać je botowi.",
    takeSeat: "Zajmij miejsce {n}", yourName: "Twoje imię (opcjonalnie, widoczne dla wszystkich)", watch: "Tylko oglądaj", invite: "Zaproś znajomych tym linkiem:",
    copy: "Kopiuj", copied: "Skopiowano", drawPile: "Talia", discardPile: "Stos odrzuconych",
    held: "Na ręce", scores: "Punkty", round: "Runda {n}", total: "Suma", cards: "kart: {n}",
    noFreeSeat: "Wszystkie miejsca są zajęte; możesz oglądać.", watching: "Oglądasz grę.",
    setupMe: "Odkryj kartę: kliknij jedną ze swoich zakrytych kart.",
    setupOther: "{who} odkrywa kartę.",
    drawMe: "Twoja kolej: dobierz z talii albo weź wierzchnią kartę ze stosu odrzuconych.",
    drawOther: "{who} dobiera.",
    knockMe: "{who} dobiera {v}. Zapukaj, aby o nią poprosić, albo spasuj.",
    knockOther: "{who} dobiera {v}; {p} może zapukać.",
    knockers: "Zapukali: {list}.",
    holdDeckMe: "Trzymasz {v}: kliknij kartę swojej strefy, aby ją wymienić, albo ją odrzuć.",
    holdDiscardMe: "Trzymasz {v}: kliknij kartę swojej strefy, aby ją wymienić.",
    flipMe: "Kliknij jedną ze swoich zakrytych kart, aby ją odkryć.",
    knockerSwapMe: "{who} daje ci {v}: kliknij dowolną kartę swojej strefy, aby ją wymienić.",
    takeMe: "Kliknij kartę w obszarze gracza {who}, aby ją wziąć.",
    holdTakenMe: "Kliknij kartę swojej strefy, aby wstawić wziętą kartę.",
    waiting: "Czekamy na: {who}.",
    over: "Koniec gry: wygrywa {list} z wynikiem {score}.",
    overTie: "Koniec gry: wygrywają ex aequo {list} z wynikiem {score}.",
    record: "Pobierz zapis gry",
    unknownTable: "Nie ma takiego stołu.", connectionLost: "Utracono połączenie; łączę ponownie…",
    hidden: "zakryta", lastTurn: "(ostatnia tura: {who} zakończył rundę)",
    lastMoves: "Ostatnie ruchy", continue: "Dalej", roundOver: "Runda {n} skończona: wszystkie karty są odkryte.",
    endedBy: "{who} pierwszy odkrył wszystkie karty i zakończył rundę.",
    turnLimit: "Runda osiągnęła limit tur; nikt jej nie zakończył, nikt nie ma podwojenia.",
    doubled: "{who} nie miał najniższej sumy: {sum} liczy się podwójnie, {score}.",
    notDoubledLowest: "{who} miał najniższą sumę: bez podwojenia.",
    notDoubledLow: "Suma {sum} gracza {who} nie jest większa od zera: bez podwojenia.",
    zoneSum: "Suma strefy", roundScore: "Ta runda", removedTriple: "trójka, usunięta przed liczeniem",
    gap: "puste", badgeYou: "ty", badgePerson: "człowiek", badgeBot: "bot", badgeFree: "wolne",
    badgeStandIn: "zastępuje bot", badgeWaiting: "ma ruch", seatsLabel: "Miejsca",
    freeSeatTurn: "{who} jest wolne: czekamy, aż ktoś je zajmie (udostępnij link).",
    offline: "Brak połączenia z serwerem; ponawiam…", refused: "Serwer odrzucił żądanie ({code}).",
    "search-easy": "bot szukający (łatwy)", policy: "bot wytrenowany (strategia)",
    loading: "Gra wczytuje się do tej strony…", loadFailed: "Nie udało się wczytać gry do tej strony ({code}).",
    localNote: "Grasz tutaj, na tej stronie, z botami: nic nie jest nigdzie wysyłane.",
    refusedLocal: "Stół odrzucił ten ruch ({code}).", newGame: "Nowa gra",
    dealCommitted: "Rozdanie jest ustalone: zobowiązanie", seedChosen: "Założyciel stołu wybrał ziarno (dlatego tylko jedno miejsce jest dla człowieka).",
    dealChecked: "Rozdanie było ustalone przed grą: sprawdzone.", dealNoted: "(względem zobowiązania zapamiętanego przez stronę przy dołączeniu)",
    dealServerOnly: "(ta strona nie widziała stołu przed końcem: sprawdzone względem zobowiązania, które pokazuje serwer)",
    dealMismatch: "UWAGA: ujawnione rozdanie NIE zgadza się ze zobowiązaniem z początku gry. Rozdanie mogło zostać zmienione w trakcie gry!",
    dealNoCrypto: "Ta przeglądarka nie może tu sprawdzić rozdania (potrzebne https); użyj polecenia poniżej.",
    dealNone: "Ten stół powstał, zanim rozdania były ustalane z góry: nie ma czego sprawdzać.",
    dealVerify: "Aby sprawdzić każdy ruch od ustalonego rozdania, pobierz zapis i uruchom:",
    verifyTitle: "Sprawdź rozdanie i każdy ruch partii", verifying: "Zapis jest sprawdzany na tej stronie…", verifyOk: "Sprawdzone na tej stronie:", verifyFailed: "Niepotwierdzone:", verifyHere: "Sprawdź każdy ruch w przeglądarce (strona gry, nic nie jest wysyłane):",
    youName: "Ty", playerN: "Gracz {n}", greedyName: "Bot zachłanny", searchName: "Bot szukający",
    "search-easyName": "Bot szukający", policyName: "Bot wytrenowany", randomName: "Bot losowy",
    botN: "{name} {k}", otherSeat: "Miejsce: {name}",
    presetSeeds: "Standardowe (jak w instrukcji)", presetDe: "Niemiecki tekst zasad, dosłownie",
    presetPl: "Polski tekst zasad, dosłownie", presetFr: "Francuski tekst zasad, dosłownie",
    presetPublished: "Wydana gra", presetsLink: "Czym różnią się zestawy zasad",
    askKnock: "Pytaj mnie tylko, gdy karta może mi pomóc",
    drawnForYou: "Dobrano za ciebie z talii: {v} na stosie odrzuconych nie mogła ci pomóc.",
    passedForYou: "Spasowano za ciebie: {v} dobrana przez: {who} nie mogła ci pomóc.",
    holdDeckKnockedMe: "Trzymasz {v}: kliknij kartę swojej strefy, aby ją wymienić, odrzuć ją albo oddaj pukającemu.",
    roundOverAll: "Runda {n} skończona: {who} odkrywa wszystkie karty.",
    roundOverLimit: "Runda {n} skończona: osiągnęła limit tur.",
    heldBy: "Na ręce: {who}", heldByMe: "Na twojej ręce",
    zoneOf: "Liczy się strefa: 12 kart gracza {who} i kolumna sąsiada obok nich.",
  },
  fr: {
    title: "Allegra", language: "Langue", newTable: "Nouvelle table", players: "Joueurs",
    rules: "Règles", maxTurns: "Tours par manche (vide : sans limite)", otherSeats: "Les autres places",
    seatN: "Place {n}", you: "vous", person: "une personne (invitée par lien)", random: "bot aléatoire", search: "bot chercheur (plus fort)",
    greedy: "bot glouton", create: "Créer la table", joinTable: "Rejoindre la table",
    freeSeat: "Libérer la place {n}", botSeat: "Confier la place {n} à un bot", creatorControls: "Vous avez créé la table : vous pouvez libérer une place ou la confier à un bot.",
    takeSeat: "Prendre la place {n}", yourName: "Votre nom (facultatif, visible de tous)", watch: "Regarder seulement", invite: "Invitez vos amis avec ce lien :",
    copy: "Copier", copied: "Copié", drawPile: "Pioche", discardPile: "Défausse",
    held: "En main", scores: "Points", round: "Manche {n}", total: "Total", cards: "{n} cartes",
    noFreeSeat: "Toutes les places sont prises ; vous pouvez regarder.", watching: "Vous regardez.",
    setupMe: "Retournez une carte : cliquez sur une de vos cartes face cachée.",
    setupOther: "{who} retourne une carte.",
    drawMe: "À vous : piochez ou prenez la carte du dessus de la défausse.",
    drawOther: "{who} pioche.",
    knockMe: "{who} a pioché le {v}. Frappez pour le demander, ou passez.",
    knockOther: "{who} a pioché le {v} ; {p} peut frapper.",
    knockers: "Ont frappé : {list}.",
    holdDeckMe: "Vous tenez le {v} : cliquez sur une carte de votre zone pour l’échanger, ou défaussez-le.",
    holdDiscardMe: "Vous tenez le {v} : cliquez sur une carte de votre zone pour l’échanger.",
    flipMe: "Cliquez sur une de vos cartes face cachée pour la retourner.",
    knockerSwapMe: "{who} vous a donné le {v} : cliquez sur n’importe quelle carte de votre zone pour l’échanger.",
    takeMe: "Cliquez sur une carte de la zone de {who} pour la prendre.",
    holdTakenMe: "Cliquez sur une carte de votre zone pour y placer la carte prise.",
    waiting: "En attente de {who}.",
    over: "Fin de la partie : {list} gagne avec {score}.",
    overTie: "Fin de la partie : {list} gagnent ex æquo avec {score}.",
    record: "Télécharger l’enregistrement de la partie",
    unknownTable: "Cette table n’existe pas.", connectionLost: "Connexion perdue ; reconnexion…",
    hidden: "cachée", lastTurn: "(dernier tour : {who} a fini la manche)",
    lastMoves: "Derniers coups", continue: "Continuer", roundOver: "La manche {n} est finie : toutes les cartes sont retournées.",
    endedBy: "{who} a retourné toutes ses cartes en premier et a fini la manche.",
    turnLimit: "La manche a atteint sa limite de tours ; personne ne l’a finie, personne n’est doublé.",
    doubled: "{who} n’avait pas la somme la plus basse : {sum} compte double, {score}.",
    notDoubledLowest: "{who} avait la somme la plus basse : pas de doublement.",
    notDoubledLow: "La somme {sum} de {who} n’est pas au-dessus de zéro : pas de doublement.",
    zoneSum: "Somme de la zone", roundScore: "Cette manche", removedTriple: "un brelan, retiré avant le compte",
    gap: "vide", badgeYou: "vous", badgePerson: "joueur", badgeBot: "bot", badgeFree: "libre",
    badgeStandIn: "un bot remplace", badgeWaiting: "doit jouer", seatsLabel: "Places",
    freeSeatTurn: "{who} est encore libre : on attend que quelqu’un la prenne (partagez le lien).",
    offline: "Le serveur est injoignable ; nouvel essai…", refused: "Le serveur a refusé ({code}).",
    "search-easy": "bot chercheur (facile)", policy: "bot entraîné (stratégie)",
    loading: "Le jeu se charge dans cette page…", loadFailed: "Le jeu n’a pas pu se charger dans cette page ({code}).",
    localNote: "Vous jouez ici, dans cette page, contre des bots : rien n’est envoyé nulle part.",
    refusedLocal: "La table a refusé ({code}).", newGame: "Nouvelle partie",
    dealCommitted: "La donne est fixée : engagement", seedChosen: "Le créateur de cette table a choisi la graine (une seule place est donc pour une personne).",
    dealChecked: "La donne était fixée avant la partie : vérifié.", dealNoted: "(avec l’engagement que cette page a noté en rejoignant la table)",
    dealServerOnly: "(cette page n’a pas vu la table avant la fin : vérifié avec l’engagement que montre le serveur)",
    dealMismatch: "ATTENTION : la donne révélée NE correspond PAS à l’engagement montré au début. La donne a peut-être été changée pendant la partie !",
    dealNoCrypto: "Ce navigateur ne peut pas vérifier la donne ici (il faut https) ; utilisez la commande ci-dessous.",
    dealNone: "Cette table a été créée avant que les donnes soient engagées : il n’y a rien à vérifier.",
    dealVerify: "Pour vérifier chaque coup depuis la donne engagée, téléchargez l’enregistrement et lancez :",
    verifyTitle: "Vérifier la donne et chaque coup d’une partie", verifying: "Vérification de l’enregistrement dans cette page…", verifyOk: "Vérifié dans cette page :", verifyFailed: "Non vérifié :", verifyHere: "Vérifier chaque coup dans le navigateur (la page de jeu, rien n’est envoyé) :",
    youName: "Vous", playerN: "Joueur {n}", greedyName: "Bot glouton", searchName: "Bot chercheur",
    "search-easyName": "Bot chercheur", policyName: "Bot entraîné", randomName: "Bot aléatoire",
    botN: "{name} {k}", otherSeat: "Place de {name}",
    presetSeeds: "Standard (comme dans Comment jouer)", presetDe: "Le texte allemand des règles, à la lettre",
    presetPl: "Le texte polonais des règles, à la lettre", presetFr: "Le texte français des règles, à la lettre",
    presetPublished: "Le jeu publié", presetsLink: "Ce que changent les jeux de règles",
    askKnock: "Ne me demander que si la carte peut m’aider",
    drawnForYou: "Pioché pour vous : le {v} de la défausse ne pouvait pas vous aider.",
    passedForYou: "Passé pour vous : le {v} pioché par {who} ne pouvait pas vous aider.",
    holdDeckKnockedMe: "Vous tenez le {v} : cliquez sur une carte de votre zone pour l’échanger, défaussez-le ou donnez-le à qui a frappé.",
    roundOverAll: "La manche {n} est finie : {who} a retourné toutes ses cartes.",
    roundOverLimit: "La manche {n} est finie : elle a atteint sa limite de tours.",
    heldBy: "Dans la main de {who}", heldByMe: "Dans votre main",
    zoneOf: "La zone comptée : les 12 cartes de {who} et la colonne du voisin à côté.",
  },
};


// What the server says, by its error code ({"error": code, "message": ...}), in the
// page's language. A code not listed here is shown as TEXT.refused with the code.
const ERRORS = {
  en: {
    bad_authorization: "The seat's key is malformed.",
    bad_body: "The server did not understand the request.",
    bad_query: "The server did not understand the request.",
    body_timeout: "The request took too long to arrive; try again.",
    cross_origin: "Requests from another site are refused.",
    game_not_over: "The game is not over yet.",
    game_over: "The game is over.",
    illegal_action: "That move is not allowed now.",
    invalid_action: "That is not a valid move.",
    invalid_bot: "That bot is not available.",
    invalid_table: "These table settings are not valid.",
    internal_error: "The server failed; try again later.",
    malformed_json: "The server did not understand the request.",
    method_not_allowed: "The server does not allow this request.",
    missing_token: "This needs your seat's key: take a seat first.",
    not_creator: "Only the table's creator may do that.",
    not_found: "There is nothing at this address.",
    not_your_turn: "It is not your move.",
    seat_is_bot: "A bot plays that seat.",
    seat_taken: "Someone has already taken that seat.",
    seed_chosen: "The creator chose this table’s seed: it cannot have a second seat for a person.",
    stale_version: "The table has moved on; here is where it stands now.",
    too_large: "The request is too large.",
    too_many_requests: "Too many requests; wait a moment and try again.",
    table_expired: "Nobody took a seat at this table for too long: it has closed. Create a new one.",
    too_many_tables: "The server has too many open tables; try again later.",
    unknown_seat: "The table has no such seat.",
    unknown_table: "There is no such table.",
    unsupported_media_type: "The server did not understand the request.",
    wrong_token: "Your key no longer fits this table; take a seat again.",
  },
  de: {
    bad_authorization: "Der Schlüssel des Platzes ist fehlerhaft.",
    bad_body: "Der Server hat die Anfrage nicht verstanden.",
    bad_query: "Der Server hat die Anfrage nicht verstanden.",
    body_timeout: "Die Anfrage kam zu langsam an; versuche es noch einmal.",
    cross_origin: "Anfragen von einer anderen Website werden abgelehnt.",
    game_not_over: "Das Spiel ist noch nicht vorbei.",
    game_over: "Das Spiel ist vorbei.",
    illegal_action: "Dieser Zug ist jetzt nicht erlaubt.",
    invalid_action: "Das ist kein gültiger Zug.",
    invalid_bot: "Diesen Bot gibt es nicht.",
    invalid_table: "Diese Tischeinstellungen sind ungültig.",
    internal_error: "Der Server hat einen Fehler; versuche es später noch einmal.",
    malformed_json: "Der Server hat die Anfrage nicht verstanden.",
    method_not_allowed: "Der Server erlaubt diese Anfrage nicht.",
    missing_token: "Dafür brauchst du den Schlüssel deines Platzes: nimm zuerst Platz.",
    not_creator: "Das darf nur, wer den Tisch eröffnet hat.",
    not_found: "Unter dieser Adresse gibt es nichts.",
    not_your_turn: "Du bist nicht am Zug.",
    seat_is_bot: "Diesen Platz spielt ein Bot.",
    seat_taken: "Diesen Platz hat schon jemand genommen.",
    seed_chosen: "Der Seed dieses Tisches wurde gewählt: er kann keinen zweiten Platz für einen Menschen bekommen.",
    stale_version: "Am Tisch ist inzwischen gespielt worden; hier ist der aktuelle Stand.",
    too_large: "Die Anfrage ist zu groß.",
    too_many_requests: "Zu viele Anfragen; warte kurz und versuche es noch einmal.",
    table_expired: "An diesem Tisch hat zu lange niemand Platz genommen: Er ist geschlossen. Eröffne einen neuen.",
    too_many_tables: "Der Server hat zu viele offene Tische; versuche es später noch einmal.",
    unknown_seat: "Diesen Platz gibt es an diesem Tisch nicht.",
    unknown_table: "Diesen Tisch gibt es nicht.",
    unsupported_media_type: "Der Server hat die Anfrage nicht verstanden.",
    wrong_token: "Dein Schlüssel passt nicht mehr zu diesem Tisch; nimm erneut Platz.",
  },
  pl: {
    bad_authorization: "Klucz miejsca jest uszkodzony.",
    bad_body: "Serwer nie zrozumiał żądania.",
    bad_query: "Serwer nie zrozumiał żądania.",
    body_timeout: "Żądanie docierało zbyt długo; spróbuj ponownie.",
    cross_origin: "Żądania z innej strony są odrzucane.",
    game_not_over: "Gra jeszcze się nie skończyła.",
    game_over: "Gra się skończyła.",
    illegal_action: "Ten ruch jest teraz niedozwolony.",
    invalid_action: "To nie jest poprawny ruch.",
    invalid_bot: "Nie ma takiego bota.",
    invalid_table: "Te ustawienia stołu są niepoprawne.",
    internal_error: "Błąd serwera; spróbuj później.",
    malformed_json: "Serwer nie zrozumiał żądania.",
    method_not_allowed: "Serwer nie pozwala na to żądanie.",
    missing_token: "Do tego potrzebny jest klucz miejsca: najpierw zajmij miejsce.",
    not_creator: "Może to zrobić tylko zakładający stół.",
    not_found: "Pod tym adresem nic nie ma.",
    not_your_turn: "To nie twój ruch.",
    seat_is_bot: "Na tym miejscu gra bot.",
    seat_taken: "To miejsce jest już zajęte.",
    seed_chosen: "Ziarno tego stołu zostało wybrane: nie może on mieć drugiego miejsca dla człowieka.",
    stale_version: "Gra poszła dalej; oto obecny stan stołu.",
    too_large: "Żądanie jest za duże.",
    too_many_requests: "Za dużo żądań; poczekaj chwilę i spróbuj ponownie.",
    table_expired: "Przy tym stole zbyt długo nikt nie usiadł: został zamknięty. Załóż nowy.",
    too_many_tables: "Serwer ma za dużo otwartych stołów; spróbuj później.",
    unknown_seat: "Przy tym stole nie ma takiego miejsca.",
    unknown_table: "Nie ma takiego stołu.",
    unsupported_media_type: "Serwer nie zrozumiał żądania.",
    wrong_token: "Twój klucz nie pasuje już do tego stołu; zajmij miejsce ponownie.",
  },
  fr: {
    bad_authorization: "La clé de la place est mal formée.",
    bad_body: "Le serveur n’a pas compris la requête.",
    bad_query: "Le serveur n’a pas compris la requête.",
    body_timeout: "La requête a mis trop de temps à arriver ; réessayez.",
    cross_origin: "Les requêtes venant d’un autre site sont refusées.",
    game_not_over: "La partie n’est pas encore finie.",
    game_over: "La partie est finie.",
    illegal_action: "Ce coup n’est pas permis maintenant.",
    invalid_action: "Ce n’est pas un coup valable.",
    invalid_bot: "Ce bot n’existe pas.",
    invalid_table: "Ces réglages de table ne sont pas valables.",
    internal_error: "Le serveur a échoué ; réessayez plus tard.",
    malformed_json: "Le serveur n’a pas compris la requête.",
    method_not_allowed: "Le serveur n’accepte pas cette requête.",
    missing_token: "Il faut la clé de votre place : prenez d’abord une place.",
    not_creator: "Seul le créateur de la table peut faire cela.",
    not_found: "Il n’y a rien à cette adresse.",
    not_your_turn: "Ce n’est pas à vous de jouer.",
    seat_is_bot: "Un bot joue cette place.",
    seat_taken: "Quelqu’un a déjà pris cette place.",
    seed_chosen: "La graine de cette table a été choisie : elle ne peut pas avoir une deuxième place pour une personne.",
    stale_version: "La partie a avancé ; voici où en est la table.",
    too_large: "La requête est trop grande.",
    too_many_requests: "Trop de requêtes ; attendez un peu et réessayez.",
    table_expired: "Personne n’a pris place à cette table depuis trop longtemps : elle est fermée. Créez-en une nouvelle.",
    too_many_tables: "Le serveur a trop de tables ouvertes ; réessayez plus tard.",
    unknown_seat: "Cette table n’a pas cette place.",
    unknown_table: "Cette table n’existe pas.",
    unsupported_media_type: "Le serveur n’a pas compris la requête.",
    wrong_token: "Votre clé ne correspond plus à cette table ; reprenez une place.",
  },
};

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// The play page also reads #lang=, #scene= and #record= (a link's fragment).
const hashParams = new URLSearchParams(location.hash.slice(1));
const page = {
  lang: "en", table: params.get("table"), seat: null, token: null, creator: null, info: null,
  view: null, socket: null, busy: false, retry: 0, seenRound: 0, infoStale: false, logSince: 0,
  dealCheck: null,
  narrow: window.matchMedia("(max-width: 700px)"),
  local: document.documentElement.dataset.backend === "browser",
  botChoices: ["greedy", "search-easy"], botOffers: null,
  // "Ask me only when the card could help me": on unless the person turned it off.
  askKnock: localStorage.getItem("allegra:askKnock") !== "off",
  autoNote: "", autoVersion: -1,
};

function chooseLang() {
  const asked = params.get("lang") || hashParams.get("lang") || localStorage.getItem("allegra:lang") ||
    (navigator.language || "en").slice(0, 2);
  return TEXT[asked] ? asked : "en";
}

function t(key, vars = {}) {
  const text = TEXT[page.lang][key] ?? TEXT.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

// Seats as people say them, in the glossary's words, as the table picture names them
// (allegra_rules.wording.seat_name): "You", a bot by its kind ("Greedy bot"; "Greedy bot 3",
// its seat counted from one, when two seats have the same kind), a person by the name
// given when joining, else "Player 3" (seats counted from one).
function seatName(p) {
  if (p === page.seat) return t("youName");
  const named = (q) => {
    const facts = seatFacts(q);
    if (facts.bot) return t(`${facts.bot.startsWith("search") ? "search" : facts.bot}Name`);
    return facts.name || t("playerN", { n: q + 1 });
  };
  const name = named(p);
  const players = page.info ? page.info.seats.length : 0;
  const same = [];
  for (let q = 0; q < players; q += 1) if (q !== page.seat && named(q) === name) same.push(q);
  if (same.length < 2) return name;
  return t("botN", { name, k: seatFacts(p).bot ? p + 1 : same.indexOf(p) + 1 });
}

function translatePage() {
  document.documentElement.lang = page.lang;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  $("lang").value = page.lang;
  translatePresets();
  $("ask-knock").checked = page.askKnock;
  if (!$("lobby").hidden) buildSeatChoices();
  if (!$("join").hidden) showJoin();
  if (page.view) render(page.view);
}

// An error of the server, or of the network, in the page's language.
function errorText(error) {
  if (!error) return "";
  if (error.code === "offline") return t("offline");
  const known = ERRORS[page.lang][error.code] ?? ERRORS.en[error.code];
  if (known) return known;
  return error.code ? t("refused", { code: error.code }) : t("refused", { code: error.status || "?" });
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
  // On a phone the message may be far above the button that caused it.
  if (message && box.getBoundingClientRect().top < 0) box.scrollIntoView({ block: "nearest" });
}

const sleep = (ms) => new Promise((done) => { setTimeout(done, ms); });

// One request. When the network fails (fetch throws) a request that may be sent again
// (GETs and moves: a move names the version it was made at, so the server refuses a
// repeat with "stale_version") is retried, waiting longer each time, while the page
// says that it cannot reach the server.
async function api(method, path, body, { retry = method === "GET", token = page.token } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  for (let attempt = 0; ; attempt += 1) {
    let response;
    try {
      response = await fetch(path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (_) {
      if (!retry || attempt >= 6) {
        const error = new Error("offline");
        error.code = "offline";
        throw error;
      }
      showError(t("offline"));
      await sleep(Math.min(16, 2 ** attempt) * 1000);
      continue;
    }
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error(data.message || response.statusText);
      error.status = response.status;
      error.code = data.error;
      throw error;
    }
    if (attempt) showError("");
    return data;
  }
}


// ------------------------------------------------- the table in this page (local)

// On the docs' play page the engine runs beside the page, in a Web Worker
// (play_worker.js): Pyodide (served by the site itself, from its npm package) with the
// wheels the docs build made, named by the <html> element's data-wheels. Python never
// runs on the page's own thread, so the page answers at once while Python loads or a bot
// thinks. allegra_rules.browser_table answers with the documents the server sends, so
// everything below "the table" is the same for both back ends; only the calls wait.
const local = {
  worker: null, ready: null, table: false, pause: 400, next: 0, waiting: new Map(), bots: false,
};

// The page paints its lobby first: the worker's start (a megabyte of JavaScript to
// compile, then the WebAssembly) would otherwise share the CPU with the page's first
// layout, one task of the page's thread. A page out of sight paints no frame: then the
// timer starts it.
function afterFirstPaint() {
  return new Promise((resolve) => {
    setTimeout(resolve, 100);
    requestAnimationFrame(() => { setTimeout(resolve, 0); });
  });
}

function localLoad() {
  if (local.ready) return local.ready;
  local.ready = afterFirstPaint().then(startWorker);
  return local.ready;
}

function startWorker() {
  const worker = new Worker(new URL("play_worker.js", document.baseURI), { type: "module" });
  local.worker = worker;
  const ready = new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.kind === "answer") {
        const waiting = local.waiting.get(message.id);
        local.waiting.delete(message.id);
        if (waiting) waiting(message);
        return;
      }
      if (message.kind === "failed") {
        reject(new Error(message.message));
        return;
      }
      // The worker's steps as the page's own marks (its clock starts later).
      for (const [name, at] of Object.entries(message.marks)) {
        performance.mark(`allegra:${name}`, { startTime: at - performance.timeOrigin });
      }
      page.botChoices = message.bots;
      page.botOffers = message.offers;
      if (!$("lobby").hidden) buildSeatChoices();
      resolve();
    };
    worker.onerror = (event) => { reject(new Error(event.message || "the game did not load")); };
  });
  const wheels = (document.documentElement.dataset.wheels || "").split(" ").filter(Boolean);
  worker.postMessage({
    kind: "load",
    base: new URL("pyodide/", document.baseURI).href,
    wheels: wheels.map((name) => new URL(`wheels/${name}`, document.baseURI).href),
    weights: new URL("weights/", document.baseURI).href,
  });
  return ready;
}

function localSend(message) {
  return local.ready.then(() => new Promise((resolve) => {
    local.next += 1;
    local.waiting.set(local.next, resolve);
    local.worker.postMessage({ ...message, id: local.next });
  }));
}

// One call of the table in this page; a refusal throws like the server's.
async function localCall(name, ...args) {
  const answer = await localSend({ kind: "call", name, args });
  if (answer.failed) throw new Error(answer.failed);
  if (answer.error) {
    const error = new Error(answer.message);
    error.code = answer.error;
    error.local = true;
    throw error;
  }
  return answer.ok;
}

// Python's value of `code`, as text (benchmarks/play_page.py times the bots with it).
async function localPython(code) {
  const answer = await localSend({ kind: "python", code });
  if (answer.failed) throw new Error(answer.failed);
  return answer.ok;
}

async function localCreate(request) {
  await localLoad();
  local.table = false;
  await localCall("create", JSON.stringify(request));
  local.table = true;
  page.table = "local";
  page.seat = JSON.parse(await localCall("view_json", page.lang)).viewer;
  page.info = JSON.parse(await localCall("info_json"));
}

async function localView() {
  return JSON.parse(await localCall("view_json", page.lang));
}

// The bots of the other seats, one move at a time, each shown for a moment; one loop
// at a time.
async function localBots() {
  if (local.bots) return;
  local.bots = true;
  try {
    while (local.table && await localCall("bot_to_move")) {
      await sleep(local.pause);
      if (!local.table) return;
      await localCall("bot_move");
      render(await localView());
    }
  } finally {
    local.bots = false;
  }
}

async function localRecordLink(link) {
  const blob = new Blob([await localCall("record_json")], { type: "application/json" });
  link.href = URL.createObjectURL(blob);
  link.download = "allegra-game.json";
}

// A position to start from, in the address: #record=<a game record's JSON, URL-encoded>,
// or #scene=<name> for a picture of the docs ("Play from here": scenes.json, written
// by the docs build, holds each picture's record).
async function localStartRecord() {
  const record = hashParams.get("record");
  if (record) return record;
  const scene = hashParams.get("scene");
  if (!scene) return null;
  const response = await fetch(new URL("scenes.json", document.baseURI));
  const records = response.ok ? await response.json() : {};
  return records[scene] ?? null;
}

// ------------------------------------------------------------------- the lobby

function buildSeatChoices() {
  const box = $("others");
  const kept = [...box.querySelectorAll("select")].map((s) => s.value);
  box.querySelectorAll("label").forEach((el) => el.remove());
  const n = Number($("players").value);
  for (let p = 1; p < n; p += 1) {
    const label = document.createElement("label");
    const span = document.createElement("span");
    span.textContent = t("playerN", { n: p + 1 });
    const select = document.createElement("select");
    select.id = `seat-${p}`;
    // Only the bots that can play this table are offered (the learned policy only
    // where NumPy and its weights are): see botOffers.
    const kinds = offeredBots(n, $("preset").value);
    for (const kind of kinds) {
      const option = document.createElement("option");
      option.value = kind;
      option.textContent = t(kind);
      select.append(option);
    }
    select.value = kinds.includes(kept[p - 1]) ? kept[p - 1] : "greedy";
    label.append(span, select);
    box.append(label);
  }
}

// The bots a seat may get at a table of n seats under a preset: the server's page reads
// them from its <html data-offers> (allegra_rules.browser_table.bot_offers), the play
// page from the table in the page.
function offeredBots(n, preset) {
  if (!page.botOffers && document.documentElement.dataset.offers) {
    page.botOffers = JSON.parse(document.documentElement.dataset.offers);
  }
  const offers = page.botOffers && page.botOffers[preset] && page.botOffers[preset][String(n)];
  if (offers) return offers;
  return page.local ? page.botChoices : ["greedy", "search", "random", "person"];
}

const PRESETS = { seeds: "presetSeeds", de: "presetDe", pl: "presetPl", fr: "presetFr", published: "presetPublished" };

// The rule sets by their human names, with a link to the page that says what each changes.
function translatePresets() {
  for (const option of $("preset").options) option.textContent = t(PRESETS[option.value]) || option.value;
  const link = $("presets-link");
  link.textContent = t("presetsLink");
  const lang = page.lang === "en" ? "" : `${page.lang}/`;
  link.href = page.local ? `../../${lang}variants/` : `https://allegra-rules.readthedocs.io/${lang}variants/`;
}

async function createTable(event) {
  event.preventDefault();
  showError("");
  const n = Number($("players").value);
  const bots = {};
  for (let p = 1; p < n; p += 1) {
    const kind = $(`seat-${p}`).value;
    if (kind !== "person") bots[String(p)] = kind;
  }
  const body = { players: n, preset: $("preset").value, bots };
  const turns = $("max-turns").value.trim();
  if (turns) body.max_turns = Number(turns);
  $("create-button").disabled = true;
  if (page.local) {
    try {
      await localCreate(body);
      $("lobby").hidden = true;
      openTable();
    } catch (error) {
      showError(t("loadFailed", { code: error.code || error.message }));
    }
    $("create-button").disabled = false;
    return;
  }
  try {
    const table = await api("POST", "/api/tables", body);
    page.table = table.table;
    // The creator's token is kept apart from the seat's: a seat's token may be dropped
    // (close code 4401), the creator's never is, so the creator can still free seats.
    localStorage.setItem(`allegra:${table.table}:creator`, table.creator_token);
    const claim = await api("POST", `/api/tables/${table.table}/seats/0`, {});
    localStorage.setItem(`allegra:${table.table}`,
      JSON.stringify({ seat: 0, token: claim.token, commitment: table.deal_commitment }));
    location.href = `/?table=${encodeURIComponent(table.table)}&lang=${page.lang}`;
  } catch (error) {
    showError(errorText(error));
    $("create-button").disabled = false;
  }
}

// --------------------------------------------------------------------- joining

function showJoin() {
  $("join").hidden = false;
  const box = $("seat-buttons");
  box.replaceChildren();
  const free = page.info.seats.filter((s) => !s.taken);
  for (const s of free) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.textContent = t("takeSeat", { n: s.seat + 1 });
    button.addEventListener("click", () => claimSeat(s.seat));
    box.append(button);
  }
  if (!free.length) {
    const note = document.createElement("p");
    note.textContent = t("noFreeSeat");
    box.append(note);
  }
  if (page.creator && !page.info.over) {
    for (const s of page.info.seats.filter((seat) => seat.taken)) {
      box.append(creatorButton("freeSeat", s.seat, "DELETE", `/api/tables/${page.table}/seats/${s.seat}`));
    }
  }
}

// -------------------------------------------------------- the creator's controls

// The creator (who holds the creator's token) may free a seat (its token stops working,
// or its bot leaves) or give it to a bot, at any time before the game is over.
function creatorButton(key, seat, method, path) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "creator";
  button.dataset.seat = String(seat);
  button.textContent = t(key, { n: seat + 1 });
  button.addEventListener("click", async () => {
    showError("");
    button.disabled = true;
    try {
      page.info = await api(method, path, method === "POST" ? {} : undefined, { token: page.creator, retry: false });
      if (!$("join").hidden) showJoin();
      if (page.view) renderSeats(page.view);
    } catch (error) {
      showError(errorText(error));
      button.disabled = false;
    }
  });
  return button;
}

function renderCreatorControls(view) {
  const box = $("creator");
  box.replaceChildren();
  box.hidden = !page.creator || page.local || view.phase === "over";
  if (box.hidden) return;
  const note = document.createElement("p");
  note.textContent = t("creatorControls");
  box.append(note);
  for (let p = 0; p < view.num_players; p += 1) {
    if (p === page.seat) continue;
    const facts = seatFacts(p);
    const base = `/api/tables/${page.table}/seats/${p}`;
    if (facts.taken) box.append(creatorButton("freeSeat", p, "DELETE", base));
    if (!facts.bot) box.append(creatorButton("botSeat", p, "POST", `${base}/bot`));
  }
}

async function claimSeat(seat) {
  showError("");
  try {
    // A name given is sent as typed (the server trims it); it is only ever shown as text.
    const name = $("join-name").value.trim();
    const claim = await api("POST", `/api/tables/${page.table}/seats/${seat}`, name ? { name } : {});
    localStorage.setItem(`allegra:${page.table}`,
      JSON.stringify({ seat, token: claim.token, commitment: rememberedCommitment() }));
    page.seat = seat;
    page.token = claim.token;
    openTable();
  } catch (error) {
    showError(errorText(error));
    page.info = await api("GET", `/api/tables/${page.table}`);
    showJoin();
  }
}

// ------------------------------------------------------------------- the table

function openTable() {
  $("join").hidden = true;
  $("table").hidden = false;
  if (page.local) {
    $("share").hidden = true;
    page.view = null;
    page.seenRound = 0;
    localView().then((view) => {
      render(view);
      localBots();
    });
    return;
  }
  $("share-link").value = `${location.origin}/?table=${page.table}`;
  page.seenRound = Number(localStorage.getItem(`allegra:${page.table}:round`) || 0);
  connect();
}

function connect() {
  if (page.socket) page.socket.close();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let url = `${scheme}://${location.host}/ws/tables/${page.table}?svg=1&lang=${page.lang}`;
  if (page.token) url += `&token=${encodeURIComponent(page.token)}`;
  const socket = new WebSocket(url);
  page.socket = socket;
  socket.onmessage = (message) => {
    page.retry = 0;
    page.infoStale = true;
    showError("");
    render(JSON.parse(message.data));
  };
  socket.onclose = (event) => {
    if (page.socket !== socket) return;
    // Close codes (see the "Run a server" page): 4401 the token is not this table's,
    // 4404 no such table, 4400 a bad query, 1011 a server error. Only 4401 drops the
    // stored token; anything else may pass (a server restarting, a proxy going away),
    // so the page tries again, waiting longer each time.
    if (event.code === 4401) {
      forgetSeat();
      return;
    }
    if (page.view && page.view.phase === "over") return;
    showError(event.code === 4404 ? t("unknownTable") : t("offline"));
    page.retry = Math.min(page.retry + 1, 6);
    const delay = Math.min(30, 2 ** (page.retry - 1)) * 1000;
    setTimeout(() => { if (page.socket === socket) connect(); }, delay);
  };
}

async function forgetSeat() {
  const commitment = rememberedCommitment();
  localStorage.removeItem(`allegra:${page.table}`);
  if (commitment) localStorage.setItem(`allegra:${page.table}:commitment`, commitment);
  page.socket = null;
  page.token = null;
  page.seat = null;
  $("table").hidden = true;
  try {
    page.info = await api("GET", `/api/tables/${page.table}`);
    showJoin();
    showError(errorText({ code: "wrong_token" }));
  } catch (error) {
    showError(errorText(error));
  }
}

// The seats' facts (bot, taken) change without a move when someone takes a seat (the
// server then sends every socket the view again): they are read again with each view
// the socket brings while a seat is free.
async function refreshInfo() {
  if (page.local || !page.info || !page.infoStale) return;
  page.infoStale = false;
  if (page.info.seats.every((s) => s.taken)) return;
  try {
    page.info = await api("GET", `/api/tables/${page.table}`);
    if (page.view) renderSeats(page.view);
  } catch (_) { /* the next version asks again */ }
}

function seatFacts(p) {
  return page.info && page.info.seats[p] ? page.info.seats[p] : { seat: p, bot: null, taken: true };
}

function cardText(value) {
  return value === null || value === undefined ? "" : String(value);
}

function setCard(el, value, hidden) {
  el.textContent = hidden ? "" : cardText(value);
  el.classList.toggle("back", Boolean(hidden));
  el.title = hidden ? t("hidden") : "";
}

function listSeats(seats) {
  return seats.map(seatName).join(", ");
}

function statusText(view) {
  const me = view.viewer !== null && view.current_player === view.viewer;
  const who = view.current_player === null ? "" : seatName(view.current_player);
  const v = view.held;
  if (view.phase === "over") {
    return t(view.winners.length > 1 ? "overTie" : "over",
      { list: listSeats(view.winners), score: view.totals[view.winners[0]] });
  }
  if (!me && view.current_player !== null && !seatFacts(view.current_player).taken) {
    return t("freeSeatTurn", { who });
  }
  switch (view.phase) {
    case "setup": return me ? t("setupMe") : t("setupOther", { who });
    case "draw": {
      const text = me ? t("drawMe") : t("drawOther", { who });
      return view.ender === null ? text : `${text} ${t("lastTurn", { who: seatName(view.ender) })}`;
    }
    case "knock":
      return me ? t("knockMe", { who: seatName(view.drawer), v })
        : t("knockOther", { who: seatName(view.drawer), v, p: who });
    default:
      break;
  }
  if (!me) return t("waiting", { who });
  const keys = {
    hold_deck: "holdDeckMe", hold_discard: "holdDiscardMe", flip: "flipMe",
    knocker_swap: "knockerSwapMe", take: "takeMe", hold_taken: "holdTakenMe",
  };
  if (view.phase === "hold_deck" && view.knockers.length) keys.hold_deck = "holdDeckKnockedMe";
  const other = view.phase === "take" ? view.knocker : view.drawer;
  return t(keys[view.phase], { v, who: other === null ? "" : seatName(other) });
}

// Why the latest round ended: a seat turned up its last card, or the turn limit.
function roundOverText(view) {
  const end = view.last_round;
  if (end.ender === null) return t("roundOverLimit", { n: end.round });
  return t("roundOverAll", { n: end.round, who: seatName(end.ender) });
}

// Whether the page shows the end of the latest round instead of the board: until the
// person presses Continue (and, when the game is over, for good).
function revealing(view) {
  return Boolean(view.last_round) &&
    (view.phase === "over" || view.last_round.round > page.seenRound);
}

function render(view) {
  if (page.view && view.version < page.view.version) return;
  const before = page.view;
  page.view = view;
  const reveal = revealing(view);
  $("status").textContent = reveal && view.phase !== "over" ? roundOverText(view) : statusText(view);
  renderSeats(view);
  renderReveal(view, reveal);
  $("board").hidden = reveal;
  renderPictures(view);
  $("draw-count").textContent = t("cards", { n: view.draw_pile_size });
  const top = view.discard_pile.length ? view.discard_pile[view.discard_pile.length - 1] : "";
  setCard($("discard-top"), top, false);
  const holding = view.held !== null || view.held_hidden;
  $("held-box").hidden = !holding;
  if (holding) {
    setCard($("held"), view.held, view.held_hidden);
    const holder = view.current_player;
    $("held-label").textContent = holder === null ? t("held")
      : holder === view.viewer ? t("heldByMe") : t("heldBy", { who: seatName(holder) });
  }

  // The status line says what the knock window waits for; the banner only who knocked.
  const knock = $("knock");
  knock.hidden = reveal || !view.knockers.length ||
    !["knock", "hold_deck"].includes(view.phase);
  if (!knock.hidden) knock.textContent = t("knockers", { list: listSeats(view.knockers) });

  const actions = $("actions");
  actions.replaceChildren();
  actions.hidden = reveal;
  // The server words each action (allegra_rules.wording) in the page's language.
  (view.legal_actions || []).forEach((action, i) => {
    if (action.pos) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.dataset.action = action.type;
    button.textContent = (view.action_texts || [])[i] || action.type;
    button.disabled = page.busy;
    button.addEventListener("click", () => play(action));
    actions.append(button);
  });
  $("ask-knock-box").hidden = reveal || view.viewer === null || view.phase === "over";
  autoPass(view);
  $("auto-note").textContent = page.autoNote;
  $("auto-note").hidden = !page.autoNote || reveal;
  if (view.viewer === null && view.phase !== "over") {
    const note = document.createElement("p");
    note.textContent = t("watching");
    actions.append(note);
  }

  const over = $("over");
  over.hidden = view.phase !== "over";
  if (!over.hidden) {
    over.replaceChildren();
    over.append(statusText(view), " ");
    const link = document.createElement("a");
    link.id = "record";
    link.textContent = t("record");
    if (page.local) {
      localRecordLink(link);
      const again = document.createElement("button");
      again.type = "button";
      again.id = "new-game";
      again.textContent = t("newGame");
      again.addEventListener("click", () => {
        local.table = false;
        page.view = null;
        $("table").hidden = true;
        $("lobby").hidden = false;
        translatePage();
      });
      over.append(link, " ", again);
    } else {
      link.href = `/api/tables/${page.table}/record`;
      link.download = `allegra-${page.table}.json`;
      over.append(link, dealCheckBox());
    }
  }
  renderDeal();
  renderLog(view, before);
  renderScores(view);
  refreshInfo();
  // Measured at the next frame, with the frame's own layout: measuring here would force
  // a layout inside this task and make it one long task of the page's thread.
  if (!fit.pending) {
    fit.pending = true;
    requestAnimationFrame(() => { fit.pending = false; fitPicture(); });
  }
}

// On a wide screen the table stays within the window's height (style.css): the picture
// takes the height that the status, the seats, a banner and the buttons above it leave.
// It keeps the lowest top seen at this window size, so that it does not grow and shrink
// from one move to the next as a banner comes and goes (a target moving under the mouse).
const fit = { top: 0, width: 0, height: 0, pending: false };
function fitPicture() {
  const board = $("board");
  if (board.hidden || $("table").hidden) return;
  if (fit.width !== window.innerWidth || fit.height !== window.innerHeight) {
    Object.assign(fit, { top: 0, width: window.innerWidth, height: window.innerHeight });
  }
  const top = Math.round(board.getBoundingClientRect().top + window.scrollY);
  if (top <= fit.top) return;
  fit.top = top;
  document.documentElement.style.setProperty("--picture-top", `${top}px`);
}
window.addEventListener("resize", fitPicture);

// "Ask me only when the card could help me": a knock window whose card could not help
// the person (view.knock_could_help, allegra_rules.hints.knock_reason) is passed for them,
// and the page says so until their next move of their own.
// The same setting draws from the draw pile for them when the discard pile's top could
// not help (view.discard_could_help, allegra_rules.hints.draw_reason), and says so too.
function autoPass(view) {
  const me = view.viewer !== null && view.current_player === view.viewer;
  if (!page.askKnock || !me || page.autoVersion === view.version || revealing(view)) return;
  const legal = view.legal_actions || [];
  let action = null;
  let note = "";
  if (view.phase === "knock" && !view.knock_could_help) {
    action = legal.find((a) => a.type === "pass");
    note = t("passedForYou", { v: view.held, who: seatName(view.drawer) });
  } else if (view.phase === "draw" && !view.discard_could_help) {
    action = legal.find((a) => a.type === "draw_deck");
    const top = view.discard_pile.length ? view.discard_pile[view.discard_pile.length - 1] : "";
    note = t("drawnForYou", { v: top });
  }
  if (!action) return;
  page.autoVersion = view.version;
  page.autoNote = page.autoNote ? `${page.autoNote} ${note}` : note;
  setTimeout(() => {
    if (page.view && page.view.version === view.version && !page.busy) play(action, { auto: true });
    else page.autoVersion = -1;
  }, 0);
}

function renderSeats(view) {
  const list = $("seats");
  list.replaceChildren();
  list.setAttribute("aria-label", t("seatsLabel"));
  const standIn = view.stand_in || [];
  for (let p = 0; p < view.num_players; p += 1) {
    const facts = seatFacts(p);
    const item = document.createElement("li");
    item.dataset.seat = String(p);
    const name = document.createElement("span");
    name.textContent = seatName(p);
    item.append(name);
    const badges = [];
    item.classList.toggle("me", p === view.viewer);
    if (facts.bot) badges.push(["bot", "badgeBot"]);
    else if (facts.taken) badges.push(["person", "badgePerson"]);
    else badges.push(["free", "badgeFree"]);
    if (standIn.includes(p)) badges.push(["stand-in", "badgeStandIn"]);
    // While the round's end is shown, nobody is to move yet.
    const moving = view.phase !== "over" && view.current_player === p && !revealing(view);
    if (moving) badges.push(["waiting", "badgeWaiting"]);
    for (const [kind, key] of badges) {
      const badge = document.createElement("span");
      badge.className = `badge badge-${kind}`;
      badge.textContent = t(key);
      item.append(badge);
    }
    item.classList.toggle("turn", moving);
    list.append(item);
  }
  $("share").hidden = page.local || (Boolean(page.info) && page.info.seats.every((s) => s.taken));
  renderCreatorControls(view);
}

// ------------------------------------------------------------------ fair deals

// The table commits to its deal when it is created (SHA-256 of a prefix, the seed and a
// secret salt) and reveals the seed and the salt in its record once the game is over.
// The page keeps the commitment it was shown when it joined (beside its token) and,
// at the end, hashes the revealed seed and salt to it here, with SubtleCrypto. It has no
// engine to replay the moves: for that it shows the allegra-rules verify command.
const DEAL_PREFIX = "allegra-rules deal commitment v1\n";

function rememberedCommitment() {
  const saved = JSON.parse(localStorage.getItem(`allegra:${page.table}`) || "null");
  return (saved && saved.commitment) || localStorage.getItem(`allegra:${page.table}:commitment`);
}

function renderDeal() {
  const box = $("deal");
  const info = page.info;
  box.hidden = page.local || !info || !info.deal_commitment;
  if (box.hidden) return;
  const code = document.createElement("code");
  code.textContent = info.deal_commitment;
  box.replaceChildren(`${t("dealCommitted")} `, code);
  if (info.seed_chosen) box.append(` ${t("seedChosen")}`);
}

// The hex digest of the commitment to a seed (its decimal text) and a salt (hex).
async function dealDigest(seedText, saltHex) {
  const head = new TextEncoder().encode(DEAL_PREFIX + seedText);
  const salt = new Uint8Array(saltHex.match(/../g).map((h) => parseInt(h, 16)));
  const message = new Uint8Array(head.length + salt.length);
  message.set(head);
  message.set(salt, head.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", message));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function checkDeal() {
  const noted = rememberedCommitment();
  const result = { kind: "none", text: t("dealNone"), noted };
  try {
    // The record's text, not its parsed numbers: a seed may have more digits than a
    // JavaScript number keeps.
    const response = await fetch(`/api/tables/${page.table}/record`);
    const text = await response.text();
    const record = JSON.parse(text);
    result.record = text;
    const seed = /"seed":(-?[0-9]+)[,}]/.exec(text);
    if (!record.deal_commitment || !record.deal_salt || !seed) return result;
    const expected = noted || record.deal_commitment;
    result.noted = expected;
    if (!(window.crypto && crypto.subtle)) {
      Object.assign(result, { kind: "unchecked", text: t("dealNoCrypto") });
    } else if (await dealDigest(seed[1], record.deal_salt) === expected
      && record.deal_commitment === expected) {
      const how = noted ? t("dealNoted") : t("dealServerOnly");
      Object.assign(result, { kind: "ok", text: `${t("dealChecked")} ${how}` });
    } else {
      Object.assign(result, { kind: "warning", text: t("dealMismatch") });
    }
  } catch (_) {
    Object.assign(result, { kind: "unchecked", text: t("dealNoCrypto") });
  }
  return result;
}

// The play page checks a record it is handed in its address's fragment (never sent to
// any server): "#verify=<the record, base64url>&commitment=<hex>". The engine replays it
// here, as allegra-rules verify does (allegra_rules.records.verify_record_text).
function base64url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

async function verifyHere() {
  const box = $("verify");
  const result = $("verify-result");
  box.hidden = false;
  result.textContent = t("verifying");
  const fields = new URLSearchParams(location.hash.slice(1));
  try {
    const record = fromBase64url(fields.get("verify") || "");
    await localLoad();
    const verdict = await localCall("verify", record, fields.get("commitment") || null);
    box.className = "deal-ok";
    result.textContent = `${t("verifyOk")} ${verdict}`;
  } catch (error) {
    box.className = "deal-warning";
    result.setAttribute("role", "alert");
    result.textContent = `${t("verifyFailed")} ${error.message}`;
  }
}

function dealCheckBox() {
  const box = document.createElement("div");
  box.id = "deal-check";
  if (!page.dealCheck) {
    page.dealCheck = checkDeal();
    page.dealCheck.then(() => { if (page.view) render(page.view); });
    return box;
  }
  page.dealCheck.then((result) => {
    box.className = `deal-${result.kind}`;
    const line = document.createElement("p");
    line.textContent = result.text;
    if (result.kind === "warning") line.setAttribute("role", "alert");
    box.replaceChildren(line);
    if (result.kind === "none") return;
    const hint = document.createElement("p");
    const command = document.createElement("code");
    command.textContent = `allegra-rules verify allegra-${page.table}.json --commitment ${result.noted}`;
    hint.append(`${t("dealVerify")} `, command);
    box.append(hint);
    const play = document.documentElement.dataset.playPage;
    if (play && result.record) {
      const here = document.createElement("p");
      const link = document.createElement("a");
      link.id = "verify-link";
      link.href = `${play}#verify=${base64url(result.record)}&commitment=${result.noted}`;
      link.rel = "noreferrer";
      link.textContent = play;
      here.append(`${t("verifyHere")} `, link);
      box.append(here);
    }
  });
  return box;
}

// ----------------------------------------------------------- the table picture

// The server's picture has every seat side by side. On a narrow screen each seat's
// zone (its four columns and its left neighbour's column 3, under its coloured band)
// is cut out: the reader's own first, as wide as the screen, then the others, two to a
// row (a seat with a card to click in it gets a whole row).
let pictureCount = 0;

function seatCrop(text, seat, wide) {
  pictureCount += 1;
  const box = document.createElement("div");
  box.className = wide ? "crop wide" : "crop";
  box.dataset.seat = String(seat);
  // Each copy gets its own pattern id: a url(#id) reaches the first element with that id.
  box.innerHTML = text.replaceAll("allegra-back", `allegra-back-${pictureCount}`);
  const svg = box.querySelector("svg");
  const band = svg && svg.querySelector(`rect.zone-band[data-zone="${seat}"]`);
  if (!band) return null;
  const x = Number(band.getAttribute("x")) - 4;
  const width = Number(band.getAttribute("width")) + 8;
  const inside = (left, right) => right > x && left < x + width;
  // Down to the zone's bracket, or to a held or hand card under it with its notes.
  let bottom = Number(band.getAttribute("y")) + Number(band.getAttribute("height")) + 8;
  const bracket = svg.querySelector(`g.zone-bracket[data-zone="${seat}"] rect`);
  if (bracket) {
    bottom = Math.max(bottom, Number(bracket.getAttribute("y")) + Number(bracket.getAttribute("height")) + 6);
  }
  for (const card of svg.querySelectorAll("g.held-card, g.hand-card")) {
    const rect = card.querySelector("rect");
    const left = Number(rect.getAttribute("x"));
    if (inside(left, left + Number(rect.getAttribute("width")))) {
      bottom = Math.max(bottom, Number(rect.getAttribute("y")) + Number(rect.getAttribute("height")) + 8);
    }
  }
  bottom = Math.min(bottom, svg.viewBox.baseVal.height);
  svg.setAttribute("viewBox", `${x} 0 ${width} ${bottom}`);
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  // What belongs to other zones goes: their cards (so that none can be clicked) and the
  // words that start or centre outside the cut.
  for (const card of svg.querySelectorAll("g.card")) {
    const rect = card.querySelector("rect");
    const left = Number(rect.getAttribute("x"));
    if (!inside(left, left + Number(rect.getAttribute("width")))) card.remove();
  }
  for (const text of svg.querySelectorAll("text")) {
    const at = Number(text.getAttribute("x"));
    if (!(at > x && at < x + width)) text.remove();
  }
  return box;
}

function renderPictures(view) {
  const picture = $("picture");
  const text = view.svg || "";
  if (!page.narrow.matches) {
    picture.className = "";
    picture.innerHTML = text;
    const svg = picture.querySelector("svg");
    // A wide table keeps readable cards and scrolls sideways.
    if (svg) svg.style.minWidth = `${view.num_players * 160}px`;
    return;
  }
  picture.className = "crops";
  picture.replaceChildren();
  const n = view.num_players;
  const me = view.viewer;
  const order = [];
  for (let k = 0; k < n; k += 1) order.push(me === null ? k : (me + k) % n);
  for (const seat of order) {
    // Every zone as wide as the screen: half-width ones had 7 px labels.
    const crop = seatCrop(text, seat, true);
    if (crop) picture.append(crop);
  }
}

// ------------------------------------------------------------ the round's end

// A seat's zone as its round sum counts it: the neighbour's column beside its own 12
// cards (view.zones: 15 cells, row by row), or its own grid where no zones are sent.
function revealGrid(view, seat) {
  const end = view.last_round;
  const grid = document.createElement("div");
  grid.className = "reveal-grid";
  const removed = new Set(end.removed || []);
  const own = [];
  for (let k = 0; k < 12; k += 1) own.push(seat * 12 + k);
  const cells = view.zones ? view.zones[seat] : own;
  grid.classList.toggle("zone", Boolean(view.zones));
  for (const i of cells) {
    const card = document.createElement("span");
    const value = end.cells[i];
    card.className = "card-face small";
    if (Math.floor(i / 12) !== seat) card.classList.add("neighbour");
    card.dataset.index = String(i);
    if (value === null) {
      card.classList.add("gap");
      card.title = t("gap");
    } else {
      card.textContent = String(value);
      card.classList.add("revealed");
    }
    if (removed.has(i)) {
      card.classList.add("removed");
      card.title = t("removedTriple");
    }
    grid.append(card);
  }
  return grid;
}

function reasonText(view) {
  const end = view.last_round;
  if (end.ender === null) return t("turnLimit");
  const who = seatName(end.ender);
  const sum = end.zone_sums[end.ender];
  const others = end.zone_sums.filter((_, p) => p !== end.ender);
  let second;
  if (end.doubled) second = t("doubled", { who, sum, score: end.scores[end.ender] });
  else if (sum <= Math.min(...others)) second = t("notDoubledLowest", { who });
  else second = t("notDoubledLow", { who, sum });
  return `${t("endedBy", { who })} ${second}`;
}

function renderReveal(view, reveal) {
  const box = $("reveal");
  box.hidden = !reveal;
  if (!reveal) return;
  const end = view.last_round;
  $("reveal-title").textContent = t("round", { n: end.round });
  $("reveal-reason").textContent = reasonText(view);
  const grids = $("reveal-grids");
  grids.replaceChildren();
  const n = view.num_players;
  for (let k = 0; k < n; k += 1) {
    const seat = view.viewer === null ? k : (view.viewer + k) % n;
    const figure = document.createElement("figure");
    figure.dataset.seat = String(seat);
    if (seat === end.ender) figure.classList.add("ender");
    const caption = document.createElement("figcaption");
    caption.textContent = `${seatName(seat)}: ${end.scores[seat]}`;
    figure.append(caption, revealGrid(view, seat));
    if (view.zones) figure.title = t("zoneOf", { who: seatName(seat) });
    grids.append(figure);
  }
  const table = $("reveal-scores");
  table.replaceChildren();
  const head = table.insertRow();
  head.append(document.createElement("th"));
  for (let p = 0; p < n; p += 1) {
    const th = document.createElement("th");
    th.textContent = seatName(p);
    head.append(th);
  }
  const rows = [["zoneSum", end.zone_sums], ["roundScore", end.scores], ["total", view.totals]];
  for (const [key, values] of rows) {
    const row = table.insertRow();
    row.insertCell().textContent = t(key);
    values.forEach((value, p) => {
      const cell = row.insertCell();
      cell.textContent = String(value);
      if (key === "roundScore" && p === end.ender && end.doubled) cell.className = "doubled";
    });
  }
  $("reveal-continue").hidden = view.phase === "over";
}

function continueGame() {
  if (!page.view || !page.view.last_round) return;
  page.seenRound = page.view.last_round.round;
  localStorage.setItem(`allegra:${page.table}:round`, String(page.seenRound));
  render(page.view);
  $("status").scrollIntoView({ block: "nearest" });
}

function renderLog(view, before) {
  const list = $("log");
  list.replaceChildren();
  // The moves since the view before this one stand out.
  if (!before) page.logSince = view.version;
  else if (before.version !== view.version) page.logSince = before.version;
  const seen = page.logSince;
  for (const entry of (view.log || []).slice(-6).reverse()) {
    const item = document.createElement("li");
    item.textContent = entry.text;
    item.dataset.seat = String(entry.seat);
    if (entry.version > seen) item.className = "new";
    list.append(item);
  }
  list.previousElementSibling.hidden = !list.children.length;
}

function renderScores(view) {
  const table = $("scores");
  table.replaceChildren();
  const head = table.insertRow();
  head.append(document.createElement("th"));
  for (let p = 0; p < view.num_players; p += 1) {
    const th = document.createElement("th");
    th.textContent = seatName(p);
    head.append(th);
  }
  view.round_scores.forEach((scores, r) => {
    const row = table.insertRow();
    row.insertCell().textContent = t("round", { n: r + 1 });
    for (const score of scores) row.insertCell().textContent = String(score);
  });
  const total = table.insertRow();
  total.className = "total";
  total.insertCell().textContent = t("total");
  for (const score of view.totals) total.insertCell().textContent = String(score);
}

function samePos(a, b) {
  return a.player === b.player && a.row === b.row && a.col === b.col;
}

function clickCell(event) {
  const cell = event.target.closest("g[data-seat]");
  if (!cell || !page.view) return;
  const pos = { player: Number(cell.dataset.seat), row: Number(cell.dataset.row),
    col: Number(cell.dataset.col) };
  const action = (page.view.legal_actions || []).find((a) => a.pos && samePos(a.pos, pos));
  if (action) play(action);
}

async function play(action, { auto = false } = {}) {
  if (page.busy || !page.view) return;
  if (!auto) page.autoNote = "";
  page.busy = true;
  showError("");
  for (const button of $("actions").querySelectorAll("button")) button.disabled = true;
  try {
    const view = page.local
      ? JSON.parse(await localCall("move_json", JSON.stringify(action), page.view.version, page.lang))
      : await api("POST", `/api/tables/${page.table}/moves?svg=1&lang=${page.lang}`,
        { action, version: page.view.version }, { retry: true });
    render(view);
  } catch (error) {
    if (error.local) {
      showError(t("refusedLocal", { code: error.code }));
      return;
    }
    showError(errorText(error));
    if (error.status === 409) {
      render(await api("GET", `/api/tables/${page.table}/view?svg=1&lang=${page.lang}`));
    }
  } finally {
    page.busy = false;
    if (page.view) render(page.view);
  }
  if (page.local) localBots();
}

// ----------------------------------------------------------------------- start

async function start() {
  page.lang = chooseLang();
  $("lang").addEventListener("change", () => {
    page.lang = $("lang").value;
    localStorage.setItem("allegra:lang", page.lang);
    const url = new URL(location.href);
    url.searchParams.set("lang", page.lang);
    history.replaceState(null, "", url);
    translatePage();
    if (page.socket) connect();
    if (page.local && local.table) localView().then(render);
  });
  $("picture").addEventListener("click", clickCell);
  $("reveal-continue").addEventListener("click", continueGame);
  page.narrow.addEventListener("change", () => { if (page.view) renderPictures(page.view); });
  $("copy").addEventListener("click", async () => {
    $("share-link").select();
    try { await navigator.clipboard.writeText($("share-link").value); } catch (_) { /* select() is enough */ }
    $("copy").textContent = t("copied");
  });
  $("players").addEventListener("change", buildSeatChoices);
  $("preset").addEventListener("change", buildSeatChoices);
  $("ask-knock").addEventListener("change", () => {
    page.askKnock = $("ask-knock").checked;
    localStorage.setItem("allegra:askKnock", page.askKnock ? "on" : "off");
    if (page.view) render(page.view);
  });
  $("create").addEventListener("submit", createTable);
  $("watch").addEventListener("click", openTable);
  if (page.local) {
    page.table = null;
    $("local-note").hidden = false;
    $("lobby").hidden = false;
    translatePage();
    $("loading").hidden = false;
    if (location.hash.startsWith("#verify=")) {
      $("lobby").hidden = true;
      $("loading").hidden = true;
      await verifyHere();
      return;
    }
    try {
      const loading = localLoad();  // at once: Python loads while the page waits for nothing
      const from = await localStartRecord();
      await loading;
      $("loading").hidden = true;
      if (from) {
        await localCreate({ record: from });
        $("lobby").hidden = true;
        openTable();
      }
    } catch (error) {
      $("loading").hidden = true;
      showError(t("loadFailed", { code: error.code || error.message }));
    }
    return;
  }
  if (!page.table) {
    $("lobby").hidden = false;
    translatePage();
    return;
  }
  translatePage();
  try {
    page.info = await api("GET", `/api/tables/${page.table}`);
  } catch (error) {
    showError(errorText(error));
    return;
  }
  page.creator = localStorage.getItem(`allegra:${page.table}:creator`);
  if (!rememberedCommitment() && page.info.deal_commitment && !page.info.over) {
    localStorage.setItem(`allegra:${page.table}:commitment`, page.info.deal_commitment);
  }
  const saved = JSON.parse(localStorage.getItem(`allegra:${page.table}`) || "null");
  if (saved && typeof saved.token === "string") {
    page.seat = saved.seat;
    page.token = saved.token;
    openTable();
  } else {
    showJoin();
  }
}

start();
