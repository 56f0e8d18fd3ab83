// crossenvs serve: the page. Plain JavaScript, no build step, nothing from the network.
//
// The page opens on the start view (<body data-view="start">): the games by name with their
// rules, the settings and the opponent; Start switches to the play view (data-view="play").
// The server knows the rules; the page only draws what /api/games/{id} describes and sends the
// action id the person picked. Legal moves come grouped by source square: click a ringed piece,
// then one of its targets; a single-square action (a placement) is one click; an action with no
// square (pass, remove, keep) is a button. <body data-phase> tells scripts and tests what the
// page waits for: loading, busy (a request), thinking (the opponent), your-turn, over.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 52;
const MARGIN = 30;
const BAR = 6;
const FEW_PLACEMENTS = 8; // placements drawn as dots (Charing Cross re-placement); more are hover-only (Crisscross)
const BUTTON_PLACEMENTS = 4; // placements also offered as buttons when they are the only kind of action

const ui = { catalog: null, state: null, selected: null, pending: null, flipped: false };
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ server
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const text = (data && data.error) || `${response.status} ${response.statusText}`;
    throw new Error(response.status === 404 && path.startsWith("/api/games/") ? `${text}; start a new game` : text);
  }
  return data;
}

function gamePath(suffix) {
  return `/api/games/${encodeURIComponent(ui.state.id)}${suffix}`;
}

function setPhase(phase) {
  document.body.dataset.phase = phase;
  const idle = phase === "your-turn" || phase === "over" || phase === "waiting" || phase === "setup";
  $("undo").disabled = !(idle && ui.state && ui.state.can_undo);
  $("start").disabled = !idle && phase !== "loading";
  $("load-position").disabled = $("start").disabled; // a new game while a reply is due would race with it
}

function phaseOf(state) {
  if (state.over) return "over";
  if (state.your_turn) return "your-turn";
  return state.thinking ? "thinking" : "waiting";
}

function say(text) {
  $("message").textContent = "";
  $("start-message").textContent = "";
  $(document.body.dataset.view === "start" ? "start-message" : "message").textContent = text || "";
}

function setView(view) {
  document.body.dataset.view = view;
  $("play-view").hidden = view !== "play";
  $("start-view").hidden = view !== "start";
  $("new").hidden = view !== "play";
}

function displayName(name) {
  const game = ui.catalog && describe(name);
  return game ? game.display_name : name;
}

// One request at a time: the phase says busy, an error is shown, the board stays as it was.
async function request(work) {
  setPhase("busy");
  say("");
  try {
    await work();
  } catch (error) {
    say(error.message);
  }
  if (ui.state && document.body.dataset.view === "play") show(ui.state);
  else setPhase(ui.state || ui.catalog ? "setup" : "loading");
}

async function opponentTurn() {
  const id = ui.state && ui.state.id;
  while (ui.state && ui.state.id === id && !ui.state.over && !ui.state.your_turn) {
    setPhase("thinking");
    $("status").textContent = `${ui.state.opponent} is thinking…`;
    const state = await api("POST", gamePath("/reply"));
    if (ui.state.id !== id) return; // another game was started meanwhile: this reply is not shown
    show(state, "thinking");
  }
}

function play(action) {
  if (document.body.dataset.phase !== "your-turn") return; // a double click, or a button of a turn already played
  ui.pending = null;
  return request(async () => {
    show(await api("POST", gamePath("/move"), { action, reply: false }), "busy");
    await opponentTurn();
  });
}

function chosenGame() {
  const checked = document.querySelector('#games input[name="game"]:checked');
  return checked ? checked.value : ui.catalog.games[0].name;
}

function newGame(position) {
  const name = chosenGame();
  const body = {
    game: name,
    options: readOptions(name),
    side: $("side").value,
    opponent: $("opponent").value.trim() || $("opponent-choice").value || "random",
    reply: false,
  };
  if (position !== undefined) body.position = position;
  return request(async () => {
    const state = await api("POST", "/api/games", body);
    if (ui.state && ui.state.id !== state.id) {
      // the game left behind is closed on the server: its slot is free, a search for it is dropped
      api("DELETE", gamePath("")).catch(() => {});
    }
    ui.flipped = false;
    setView("play");
    show(state, "busy");
    history.replaceState(null, "", `#${ui.state.id}`);
    await opponentTurn();
  });
}

// ------------------------------------------------------------------ drawing
function svg(tag, attributes, parent) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

function squareIndex(state) {
  const index = {};
  state.cells.forEach((cells, row) => cells.forEach((cell, col) => (index[cell.square] = [row, col])));
  return index;
}

function origin(state, row, col) {
  const x = MARGIN + (ui.flipped ? state.width - 1 - col : col) * CELL;
  const y = MARGIN + (ui.flipped ? row : state.height - 1 - row) * CELL;
  return [x, y];
}

function drawEdges(state, board) {
  const w = state.width * CELL;
  const h = state.height * CELL;
  const flip = { top: "bottom", bottom: "top", left: "right", right: "left" };
  const rects = {
    top: [MARGIN, MARGIN - BAR, w, BAR],
    bottom: [MARGIN, MARGIN + h, w, BAR],
    left: [MARGIN - BAR, MARGIN, BAR, h],
    right: [MARGIN + w, MARGIN, BAR, h],
  };
  for (const [side, colour] of Object.entries(state.edges)) {
    const [x, y, width, height] = rects[ui.flipped ? flip[side] : side];
    svg("rect", { x, y, width, height, fill: colour }, board);
  }
}

function drawCells(state, board) {
  state.cells.forEach((cells, row) =>
    cells.forEach((cell, col) => {
      const [x, y] = origin(state, row, col);
      const rect = svg("rect", { x, y, width: CELL, height: CELL, fill: cell.fill, class: "cell" }, board);
      rect.dataset.square = cell.square;
      svg("title", {}, rect).textContent = `${cell.square}: ${cell.kind}`;
    }),
  );
  for (let col = 0; col < state.width; col++) {
    const [x] = origin(state, 0, col);
    const text = svg("text", { x: x + CELL / 2, y: MARGIN + state.height * CELL + 22, class: "label" }, board);
    text.setAttribute("text-anchor", "middle");
    text.textContent = state.files[col];
  }
  for (let row = 0; row < state.height; row++) {
    const [, y] = origin(state, row, 0);
    const text = svg("text", { x: MARGIN - 12, y: y + CELL / 2 + 5, class: "label" }, board);
    text.setAttribute("text-anchor", "end");
    text.textContent = String(row + 1);
  }
}

function drawPieces(state, board, sources) {
  for (const square of sources) {
    // a move from an empty square (none in the five games; a game of one's own may have them)
    const [row, col] = squareIndex(state)[square];
    if (state.board[row][col] !== 0) continue;
    const [x, y] = origin(state, row, col);
    board.querySelector(`rect.cell[data-square="${square}"]`).dataset.source = "1";
    svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.45, class: "movable" }, board);
  }
  state.board.forEach((codes, row) =>
    codes.forEach((code, col) => {
      if (code === 0) return;
      const piece = state.pieces[String(code)];
      const [x, y] = origin(state, row, col);
      const square = state.cells[row][col].square;
      const group = svg("g", { class: "piece" }, board);
      group.dataset.square = square;
      group.dataset.piece = piece.letter;
      const circle = svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.38 }, group);
      circle.setAttribute("fill", piece.colour);
      circle.setAttribute("stroke", "#1e1e1e");
      circle.setAttribute("stroke-width", "2");
      svg("title", {}, group).textContent = `${square}: ${piece.name}`;
      if (piece.label) {
        const ink = brightness(piece.colour) > 384 ? "#000" : "#fff";
        const text = svg("text", { x: x + CELL / 2, y: y + CELL / 2 + 6, fill: ink, class: "piece-label" }, group);
        text.setAttribute("text-anchor", "middle");
        text.textContent = piece.label;
      }
      if (sources.has(square)) {
        group.dataset.source = "1";
        svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.45, class: "movable" }, board);
      }
    }),
  );
}

function brightness(hex) {
  const value = parseInt(hex.slice(1), 16);
  return (value >> 16) + ((value >> 8) & 255) + (value & 255);
}

function outline(state, board, square, attributes) {
  const [row, col] = squareIndex(state)[square];
  const [x, y] = origin(state, row, col);
  return svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, ...attributes }, board);
}

function dot(state, board, square, dataKey) {
  const [row, col] = squareIndex(state)[square];
  const [x, y] = origin(state, row, col);
  const circle = svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.17, class: "target" }, board);
  circle.dataset.square = square;
  circle.dataset[dataKey] = "1";
  return circle;
}

function renderBoard() {
  const state = ui.state;
  const board = $("board");
  board.replaceChildren();
  const width = state.width * CELL + 2 * MARGIN;
  const height = state.height * CELL + 2 * MARGIN;
  board.setAttribute("viewBox", `0 0 ${width} ${height}`); // drawn into the reserved square: nothing moves
  const legal = state.legal;
  drawEdges(state, board);
  drawCells(state, board);
  for (const square of state.last_move) outline(state, board, square, { class: "last", stroke: state.last_move_colour });
  drawPieces(state, board, new Set(Object.keys(legal.moves)));
  if (ui.selected) {
    outline(state, board, ui.selected, { class: "selected" });
    const targets = new Set((legal.moves[ui.selected] || []).map((move) => move.to));
    for (const square of targets) dot(state, board, square, "target");
  }
  for (const square of new Set(legal.placements.map((move) => move.to))) {
    if (legal.placements.length <= FEW_PLACEMENTS) {
      dot(state, board, square, "placement");
    } else {
      const rect = outline(state, board, square, { class: "placeable" });
      rect.dataset.square = square;
      rect.dataset.placement = "1";
    }
  }
}

function renderChoices() {
  const box = $("choices");
  box.replaceChildren();
  const state = ui.state;
  if (!state.your_turn) return;
  const legal = state.legal;
  let prompt = "";
  let offered = legal.choices;
  if (ui.pending) {
    prompt = "Which move?";
    offered = ui.pending;
  } else if (Object.keys(legal.moves).length === 0 && legal.placements.length <= BUTTON_PLACEMENTS) {
    offered = legal.choices.concat(legal.placements);
    prompt = offered.length ? "Choose:" : "";
  } else if (offered.length) {
    prompt = "Or:";
  }
  if (prompt) {
    const label = document.createElement("span");
    label.className = "prompt";
    label.textContent = prompt;
    box.appendChild(label);
  }
  for (const move of offered) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    button.dataset.action = String(move.action);
    button.textContent = move.notation;
    button.addEventListener("click", () => play(move.action));
    box.appendChild(button);
  }
  if (ui.pending) {
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = "Cancel";
    cancel.addEventListener("click", () => {
      ui.pending = null;
      renderChoices();
    });
    box.appendChild(cancel);
  }
}

function renderTokens() {
  const box = $("tokens");
  box.replaceChildren();
  const tokens = ui.state.tokens;
  if (!tokens) return;
  for (const colour of ui.state.colours) {
    const line = document.createElement("div");
    line.className = colour === ui.state.to_move && !ui.state.over ? "side to-move" : "side";
    line.dataset.colour = colour;
    line.append(`${colour} tokens: `);
    for (const token of tokens[colour].all) {
      const chip = document.createElement("span");
      chip.className = tokens[colour].unused.includes(token) ? "token" : "token used";
      chip.textContent = token;
      line.appendChild(chip);
    }
    box.appendChild(line);
  }
}

function renderRecord() {
  const list = $("record");
  list.replaceChildren();
  let item = null;
  let mover = null;
  for (const entry of ui.state.record) {
    if (entry.colour !== mover || !item) {
      item = document.createElement("li");
      item.className = entry.yours ? "yours" : "";
      item.textContent = `${entry.colour}:`;
      list.appendChild(item);
      mover = entry.colour;
    }
    item.append(` ${entry.notation}`);
  }
  list.scrollTop = list.scrollHeight;
}

function renderLegend() {
  const legend = $("legend");
  legend.replaceChildren();
  const last = { letter: "", meaning: "last move", colour: ui.state.last_move_colour, shape: "last" };
  for (const entry of ui.state.legend_swatches.concat([last])) {
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = `swatch ${entry.shape}`;
    if (entry.shape === "last") swatch.style.borderColor = entry.colour;
    else swatch.style.background = entry.colour;
    item.dataset.colour = entry.colour;
    item.append(swatch, entry.meaning);
    legend.appendChild(item);
  }
}

// What to do now, in words: a newcomer does not know that pieces are ringed or squares clickable.
function hint(state) {
  if (!state.your_turn) return "";
  const legal = state.legal;
  if (Object.keys(legal.moves).length) return "Click one of your ringed pieces, then a dotted square to move it there.";
  if (legal.placements.length > FEW_PLACEMENTS) return "Click an empty square to place your piece there.";
  if (legal.placements.length || legal.choices.length) return "Choose with a button below the board (or click a dotted square).";
  return "";
}

function show(state, phase) {
  const changed = !ui.state || ui.state.id !== state.id || ui.state.record.length !== state.record.length;
  ui.state = state;
  if (changed) ui.pending = null;
  const sources = Object.keys(state.legal.moves);
  const alone = sources.length === 1 && state.legal.placements.length === 0 && state.legal.choices.length === 0;
  if (changed || !state.legal.moves[ui.selected]) ui.selected = alone ? sources[0] : null; // a jump goes on hop by hop
  $("title").textContent = `${displayName(state.game)}: you play ${state.you.colour} against ${state.opponent}`;
  $("status").textContent = state.your_turn ? `${state.status}: your move` : state.status;
  $("hint").textContent = hint(state);
  const end = $("end");
  end.hidden = !state.over;
  end.textContent = state.over ? state.result.line : "";
  end.dataset.outcome = state.over ? state.result.outcome : "";
  if (document.activeElement !== $("position")) $("position").value = state.position;
  renderBoard();
  renderChoices();
  renderTokens();
  renderRecord();
  renderLegend();
  setPhase(phase || phaseOf(state));
}

// ------------------------------------------------------------------ clicks
function clickSquare(square) {
  if (document.body.dataset.phase === "waiting") return request(opponentTurn); // a reply that failed: ask again
  if (document.body.dataset.phase !== "your-turn") return;
  const legal = ui.state.legal;
  const moves = ui.selected ? (legal.moves[ui.selected] || []).filter((move) => move.to === square) : [];
  const placements = legal.placements.filter((move) => move.to === square);
  const picked = moves.length ? moves : placements;
  if (picked.length === 1) return play(picked[0].action);
  if (picked.length > 1) {
    ui.pending = picked; // the same two squares, several actions: Crosse's tokens
    return renderChoices();
  }
  ui.selected = legal.moves[square] ? square : null;
  ui.pending = null;
  renderBoard();
  renderChoices();
}

// ------------------------------------------------------------------ the new-game form
function describe(name) {
  return ui.catalog.games.find((game) => game.name === name);
}

function buildGames() {
  const box = $("games");
  box.replaceChildren(); // the "Loading the games…" line the page shows until this script has run
  for (const game of ui.catalog.games) {
    const card = document.createElement("label");
    card.className = "game-card";
    const radio = document.createElement("input");
    Object.assign(radio, { type: "radio", name: "game", value: game.name, id: `game-${game.name}` });
    radio.addEventListener("change", buildOptions);
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = ` ${game.display_name}`;
    const rules = document.createElement("p");
    rules.textContent = game.rules_summary;
    const link = document.createElement("a");
    Object.assign(link, { href: game.docs_url, target: "_blank", rel: "noopener" });
    link.textContent = `Full rules of ${game.display_name}`;
    const more = document.createElement("p");
    more.appendChild(link);
    card.append(radio, name, rules, more);
    box.appendChild(card);
  }
  box.querySelector("input").checked = true;
}

function buildOptions() {
  const game = describe(chosenGame());
  $("options").replaceChildren();
  $("advanced-options").replaceChildren();
  for (const option of game.options) {
    const label = document.createElement("label");
    label.append(`${option.label || option.name.replaceAll("_", " ")} `);
    let input;
    if (option.kind === "flag") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = option.default;
    } else if (option.choices) {
      input = document.createElement("select");
      for (const choice of option.choices) input.add(new Option(choice, choice, false, choice === option.default));
    } else {
      input = document.createElement("input");
      input.type = option.kind === "integer" ? "number" : "text";
      if (option.kind === "integer") Object.assign(input, { min: option.low, max: option.high });
      input.value = String(option.default);
    }
    label.title = option.help;
    input.id = `option-${option.name}`;
    input.dataset.option = option.name;
    label.appendChild(input);
    $(option.advanced ? "advanced-options" : "options").appendChild(label);
  }
  const first = game.colours[0];
  $("side").options[0].textContent = `first (${first} by default)`;
  $("side").options[1].textContent = `second (${game.colours[1]} by default)`;
  const list = $("opponent-choice");
  const before = list.value;
  list.replaceChildren();
  for (const choice of ui.catalog.opponent_choices) {
    if (choice.kind === "pretrained" && game.pretrained.length === 0) continue;
    list.add(new Option(choice.label, choice.spec, false, choice.spec === before));
  }
}

function readOptions(name) {
  const options = {};
  for (const option of describe(name).options) {
    const input = $(`option-${option.name}`);
    if (option.kind === "flag") options[option.name] = input.checked;
    else if (option.kind === "integer" && /^-?\d+$/.test(input.value.trim())) options[option.name] = Number(input.value);
    else options[option.name] = input.value; // the server says what is wrong with it
  }
  return options;
}

async function copyPosition() {
  const text = $("position").value;
  try {
    await navigator.clipboard.writeText(text);
  } catch (error) {
    $("position").select();
    document.execCommand("copy");
  }
  say("position text copied");
}

async function resume(id) {
  let state;
  try {
    state = await api("GET", `/api/games/${encodeURIComponent(id)}`);
  } catch (error) {
    return false; // gone (the server restarted, or the game expired): a new one starts
  }
  setView("play");
  show(state);
  $(`game-${state.game}`).checked = true;
  buildOptions();
  await request(opponentTurn);
  return true;
}

async function start() {
  ui.catalog = await api("GET", "/api/catalog");
  buildGames();
  buildOptions();
  $("new").addEventListener("click", () => {
    setView("start");
    say("");
    setPhase("setup");
  });
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
  });
  $("board").addEventListener("click", (event) => {
    const element = event.target.closest("[data-square]");
    if (element) clickSquare(element.dataset.square);
  });
  $("undo").addEventListener("click", () => request(async () => show(await api("POST", gamePath("/undo")))));
  $("flip").addEventListener("click", () => {
    ui.flipped = !ui.flipped;
    if (ui.state) renderBoard();
  });
  $("typed").addEventListener("submit", (event) => {
    event.preventDefault();
    const move = $("typed-move").value.trim();
    if (!move || document.body.dataset.phase !== "your-turn") return;
    request(async () => {
      show(await api("POST", gamePath("/move"), { move, reply: false }), "busy");
      $("typed-move").value = "";
      await opponentTurn();
    });
  });
  $("copy-position").addEventListener("click", copyPosition);
  $("load-position").addEventListener("click", () => newGame($("position").value));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && ui.state) {
      ui.selected = null;
      ui.pending = null;
      renderBoard();
      renderChoices();
    }
  });
  const id = location.hash.slice(1);
  if (!(id && (await resume(id)))) {
    setView("start");
    setPhase("setup");
  }
}

start().catch((error) => say(`cannot load the page: ${error.message}`));
