// The page of the Allegra table server: create or join a table, then play it.
// It only ever reads the views the server sends (GET .../view and the WebSocket).
"use strict";

const TEXT = {
  en: {
    title: "Allegra", language: "Language", newTable: "New table", players: "Players",
    rules: "Rules", maxTurns: "Turns per round (empty: no limit)", otherSeats: "The other seats",
    seatN: "Seat {n}", you: "you", person: "a person (invite by link)", random: "random bot", search: "search bot (stronger)",
    greedy: "greedy bot", create: "Create the table", joinTable: "Join the table",
    takeSeat: "Take seat {n}", watch: "Just watch", invite: "Invite friends with this link:",
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
    holdDeckMe: "You hold the {v}: click a card of your zone to swap, discard it, or give it to a knocker.",
    holdDiscardMe: "You hold the {v}: click a card of your zone to swap it in.",
    flipMe: "Click one of your face-down cards to turn it up.",
    knockerSwapMe: "{who} gave you the {v}: click a card of your grid to swap it in.",
    takeMe: "Click a card in {who}'s area to take it.",
    holdTakenMe: "Click a card of your zone to swap in the card you took.",
    waiting: "Waiting for {who}.",
    over: "Game over: {list} won with {score}.",
    overTie: "Game over: {list} share the win with {score}.",
    record: "Download the game record",
    unknownTable: "There is no such table.", connectionLost: "Connection lost; reconnecting...",
    hidden: "hidden", lastTurn: "(last turn: {who} ended the round)",
  },
  de: {
    title: "Allegra", language: "Sprache", newTable: "Neuer Tisch", players: "Spieler",
    rules: "Regeln", maxTurns: "Züge pro Runde (leer: unbegrenzt)", otherSeats: "Die anderen Plätze",
    seatN: "Platz {n}", you: "du", person: "ein Mensch (per Link einladen)", random: "Zufalls-Bot", search: "Such-Bot (stärker)",
    greedy: "gieriger Bot", create: "Tisch eröffnen", joinTable: "Am Tisch Platz nehmen",
    takeSeat: "Platz {n} nehmen", watch: "Nur zuschauen", invite: "Lade Freunde mit diesem Link ein:",
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
    holdDeckMe: "Du hältst die {v}: klicke eine Karte deines Bereichs zum Tauschen an, leg sie ab oder gib sie einem, der geklopft hat.",
    holdDiscardMe: "Du hältst die {v}: klicke eine Karte deines Bereichs an, um sie einzutauschen.",
    flipMe: "Klicke eine deiner verdeckten Karten an, um sie aufzudecken.",
    knockerSwapMe: "{who} hat dir die {v} gegeben: klicke eine Karte deines Rasters an, um sie einzutauschen.",
    takeMe: "Klicke eine Karte im Bereich von {who} an, um sie zu nehmen.",
    holdTakenMe: "Klicke eine Karte deines Bereichs an, um die genommene Karte einzutauschen.",
    waiting: "Warte auf {who}.",
    over: "Spielende: {list} gewinnt mit {score}.",
    overTie: "Spielende: {list} gewinnen gemeinsam mit {score}.",
    record: "Spielprotokoll herunterladen",
    unknownTable: "Diesen Tisch gibt es nicht.", connectionLost: "Verbindung verloren; verbinde neu …",
    hidden: "verdeckt", lastTurn: "(letzter Zug: {who} hat die Runde beendet)",
  },
  pl: {
    title: "Allegra", language: "Język", newTable: "Nowy stół", players: "Gracze",
    rules: "Zasady", maxTurns: "Tury na rundę (puste: bez limitu)", otherSeats: "Pozostałe miejsca",
    seatN: "Miejsce {n}", you: "ty", person: "człowiek (zaproś linkiem)", random: "bot losowy", search: "bot szukający (silniejszy)",
    greedy: "bot zachłanny", create: "Załóż stół", joinTable: "Dołącz do stołu",
    takeSeat: "Zajmij miejsce {n}", watch: "Tylko oglądaj", invite: "Zaproś znajomych tym linkiem:",
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
    holdDeckMe: "Trzymasz {v}: kliknij kartę swojej strefy, aby ją wymienić, odrzuć ją albo oddaj pukającemu.",
    holdDiscardMe: "Trzymasz {v}: kliknij kartę swojej strefy, aby ją wymienić.",
    flipMe: "Kliknij jedną ze swoich zakrytych kart, aby ją odkryć.",
    knockerSwapMe: "{who} daje ci {v}: kliknij kartę swojej siatki, aby ją wymienić.",
    takeMe: "Kliknij kartę w obszarze gracza {who}, aby ją wziąć.",
    holdTakenMe: "Kliknij kartę swojej strefy, aby wstawić wziętą kartę.",
    waiting: "Czekamy na: {who}.",
    over: "Koniec gry: wygrywa {list} z wynikiem {score}.",
    overTie: "Koniec gry: wygrywają ex aequo {list} z wynikiem {score}.",
    record: "Pobierz zapis gry",
    unknownTable: "Nie ma takiego stołu.", connectionLost: "Utracono połączenie; łączę ponownie…",
    hidden: "zakryta", lastTurn: "(ostatnia tura: {who} zakończył rundę)",
  },
  fr: {
    title: "Allegra", language: "Langue", newTable: "Nouvelle table", players: "Joueurs",
    rules: "Règles", maxTurns: "Tours par manche (vide : sans limite)", otherSeats: "Les autres places",
    seatN: "Place {n}", you: "vous", person: "une personne (invitée par lien)", random: "bot au hasard", search: "bot chercheur (plus fort)",
    greedy: "bot glouton", create: "Créer la table", joinTable: "Rejoindre la table",
    takeSeat: "Prendre la place {n}", watch: "Regarder seulement", invite: "Invitez vos amis avec ce lien :",
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
    holdDeckMe: "Vous tenez le {v} : cliquez sur une carte de votre zone pour l’échanger, défaussez-le ou donnez-le à qui a frappé.",
    holdDiscardMe: "Vous tenez le {v} : cliquez sur une carte de votre zone pour l’échanger.",
    flipMe: "Cliquez sur une de vos cartes face cachée pour la retourner.",
    knockerSwapMe: "{who} vous a donné le {v} : cliquez sur une carte de votre grille pour l’échanger.",
    takeMe: "Cliquez sur une carte de la zone de {who} pour la prendre.",
    holdTakenMe: "Cliquez sur une carte de votre zone pour y placer la carte prise.",
    waiting: "En attente de {who}.",
    over: "Fin de la partie : {list} gagne avec {score}.",
    overTie: "Fin de la partie : {list} gagnent ex æquo avec {score}.",
    record: "Télécharger l’enregistrement de la partie",
    unknownTable: "Cette table n’existe pas.", connectionLost: "Connexion perdue ; reconnexion…",
    hidden: "cachée", lastTurn: "(dernier tour : {who} a fini la manche)",
  },
};

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const page = {
  lang: "en", table: params.get("table"), seat: null, token: null, info: null,
  view: null, socket: null, busy: false, retry: 0,
};

function chooseLang() {
  const asked = params.get("lang") || localStorage.getItem("allegra:lang") ||
    (navigator.language || "en").slice(0, 2);
  return TEXT[asked] ? asked : "en";
}

function t(key, vars = {}) {
  const text = TEXT[page.lang][key] ?? TEXT.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

function seatName(p) {
  const name = t("seatN", { n: p });
  return p === page.seat ? `${name} (${t("you")})` : name;
}

function translatePage() {
  document.documentElement.lang = page.lang;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  $("lang").value = page.lang;
  if (!$("lobby").hidden) buildSeatChoices();
  if (!$("join").hidden) showJoin();
  if (page.view) render(page.view);
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(method, path, body) {
  const headers = {};
  if (page.token) headers.Authorization = `Bearer ${page.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(data.message || response.statusText);
    error.status = response.status;
    error.code = data.error;
    throw error;
  }
  return data;
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
    span.textContent = t("seatN", { n: p });
    const select = document.createElement("select");
    select.id = `seat-${p}`;
    for (const kind of ["greedy", "search", "random", "person"]) {
      const option = document.createElement("option");
      option.value = kind;
      option.textContent = t(kind);
      select.append(option);
    }
    select.value = kept[p - 1] || "greedy";
    label.append(span, select);
    box.append(label);
  }
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
  try {
    const table = await api("POST", "/api/tables", body);
    page.table = table.table;
    const claim = await api("POST", `/api/tables/${table.table}/seats/0`);
    localStorage.setItem(`allegra:${table.table}`, JSON.stringify({ seat: 0, token: claim.token }));
    location.href = `/?table=${encodeURIComponent(table.table)}&lang=${page.lang}`;
  } catch (error) {
    showError(error.message);
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
    button.textContent = t("takeSeat", { n: s.seat });
    button.addEventListener("click", () => claimSeat(s.seat));
    box.append(button);
  }
  if (!free.length) {
    const note = document.createElement("p");
    note.textContent = t("noFreeSeat");
    box.append(note);
  }
}

async function claimSeat(seat) {
  showError("");
  try {
    const claim = await api("POST", `/api/tables/${page.table}/seats/${seat}`);
    localStorage.setItem(`allegra:${page.table}`, JSON.stringify({ seat, token: claim.token }));
    page.seat = seat;
    page.token = claim.token;
    openTable();
  } catch (error) {
    showError(error.message);
    page.info = await api("GET", `/api/tables/${page.table}`);
    showJoin();
  }
}

// ------------------------------------------------------------------- the table

function openTable() {
  $("join").hidden = true;
  $("table").hidden = false;
  $("share-link").value = `${location.origin}/?table=${page.table}`;
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
    showError("");
    render(JSON.parse(message.data));
  };
  socket.onclose = (event) => {
    if (page.socket !== socket) return;
    if (event.code === 1008) {
      localStorage.removeItem(`allegra:${page.table}`);
      showError(event.reason);
      return;
    }
    if (page.view && page.view.phase === "over") return;
    showError(t("connectionLost"));
    page.retry = Math.min(page.retry + 1, 5);
    setTimeout(() => { if (page.socket === socket) connect(); }, 1000 * page.retry);
  };
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
  switch (view.phase) {
    case "over":
      return t(view.winners.length > 1 ? "overTie" : "over",
        { list: listSeats(view.winners), score: view.totals[view.winners[0]] });
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
  const other = view.phase === "take" ? view.knocker : view.drawer;
  return t(keys[view.phase], { v, who: other === null ? "" : seatName(other) });
}

function render(view) {
  if (page.view && view.version < page.view.version) return;
  page.view = view;
  $("status").textContent = statusText(view);
  $("picture").innerHTML = view.svg || "";
  const svg = $("picture").querySelector("svg");
  // On a narrow screen the picture keeps readable cards and scrolls sideways.
  if (svg) svg.style.minWidth = `${view.num_players * 160}px`;
  $("draw-count").textContent = t("cards", { n: view.draw_pile_size });
  const top = view.discard_pile.length ? view.discard_pile[view.discard_pile.length - 1] : "";
  setCard($("discard-top"), top, false);
  const holding = view.held !== null || view.held_hidden;
  $("held-box").hidden = !holding;
  if (holding) setCard($("held"), view.held, view.held_hidden);

  const knock = $("knock");
  knock.hidden = view.phase !== "knock" && !(view.knockers.length && view.phase === "hold_deck");
  if (!knock.hidden) {
    const parts = [];
    if (view.phase === "knock") {
      parts.push(t("knockOther", { who: seatName(view.drawer), v: view.held,
        p: seatName(view.current_player) }));
    }
    if (view.knockers.length) parts.push(t("knockers", { list: listSeats(view.knockers) }));
    knock.textContent = parts.join(" ");
  }

  const actions = $("actions");
  actions.replaceChildren();
  // The server words each action (allegra_rules.wording) in the page's language.
  (view.legal_actions || []).forEach((action, i) => {
    if (action.pos) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.dataset.action = action.type;
    button.textContent = (view.action_texts || [])[i] || action.type;
    button.addEventListener("click", () => play(action));
    actions.append(button);
  });
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
    link.href = `/api/tables/${page.table}/record`;
    link.download = `allegra-${page.table}.json`;
    link.textContent = t("record");
    over.append(link);
  }
  renderScores(view);
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

async function play(action) {
  if (page.busy || !page.view) return;
  page.busy = true;
  showError("");
  for (const button of $("actions").querySelectorAll("button")) button.disabled = true;
  try {
    const view = await api("POST", `/api/tables/${page.table}/moves?svg=1&lang=${page.lang}`,
      { action, version: page.view.version });
    render(view);
  } catch (error) {
    showError(error.message);
    if (error.status === 409) {
      render(await api("GET", `/api/tables/${page.table}/view?svg=1&lang=${page.lang}`));
    }
  } finally {
    page.busy = false;
    if (page.view) render(page.view);
  }
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
  });
  $("picture").addEventListener("click", clickCell);
  $("copy").addEventListener("click", async () => {
    $("share-link").select();
    try { await navigator.clipboard.writeText($("share-link").value); } catch (_) { /* select() is enough */ }
    $("copy").textContent = t("copied");
  });
  $("players").addEventListener("change", buildSeatChoices);
  $("create").addEventListener("submit", createTable);
  $("watch").addEventListener("click", openTable);
  if (!page.table) {
    $("lobby").hidden = false;
    translatePage();
    return;
  }
  translatePage();
  try {
    page.info = await api("GET", `/api/tables/${page.table}`);
  } catch (error) {
    showError(error.status === 404 ? t("unknownTable") : error.message);
    return;
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
