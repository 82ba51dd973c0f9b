// The allegra-rules docs: the language selector, the picture zoom, wide pictures and
// tables on a phone (tables too wide for it are read row by row), and the replay viewer.
// docs/generate.py copies this file into every language's site, after a first line
// that sets window.allegraSite = {pages: {en: [...], de: [...], ...}}: the pages each
// language has, as paths under its root ("" for the home page, "how-to-play/", ...).
// No other script is loaded: the site works offline.
(function () {
  "use strict";

  const WORDS = {
    en: { enlarge: "Click to enlarge", close: "Close", previous: "Previous", next: "Next", step: "Step", of: "of" },
    de: { enlarge: "Zum Vergrößern klicken", close: "Schließen", previous: "Zurück", next: "Weiter", step: "Schritt", of: "von" },
    pl: { enlarge: "Kliknij, aby powiększyć", close: "Zamknij", previous: "Wstecz", next: "Dalej", step: "Krok", of: "z" },
    fr: { enlarge: "Cliquer pour agrandir", close: "Fermer", previous: "Précédent", next: "Suivant", step: "Étape", of: "sur" },
  };

  function words() {
    const lang = (document.documentElement.lang || "en").slice(0, 2);
    return WORDS[lang] || WORDS.en;
  }

  // ------------------------------------------------------------- languages

  // Material's selector links every language to its home page. Point each link at
  // the same page in that language when the page exists there (the anchors are the
  // same in every language, so the place on the page is kept too), hide languages
  // that have no page yet, and keep Material's own click handler out: it looks the
  // page up in the other language's sitemap, which names the hosted site's address.
  function languages() {
    const site = window.allegraSite;
    if (!site) return;
    const roots = {};
    for (const link of document.querySelectorAll('link[rel="alternate"][hreflang]')) {
      roots[link.hreflang] = new URL(link.getAttribute("href"), location.href).pathname;
    }
    const lang = document.documentElement.lang || "en";
    const root = roots[lang];
    if (root === undefined) return;
    let page = location.pathname.startsWith(root) ? location.pathname.slice(root.length) : "";
    page = page.replace(/index\.html$/, "");
    for (const a of document.querySelectorAll("a.md-select__link[hreflang]")) {
      const target = a.getAttribute("hreflang");
      const pages = site.pages[target];
      const item = a.closest("li") || a;
      if (!pages || pages.length === 0) {
        item.hidden = true;
        continue;
      }
      const there = pages.includes(page) ? page : "";
      const base = roots[target] !== undefined ? roots[target] : a.getAttribute("href");
      a.href = base + there + (there && location.hash ? location.hash : "");
      if (target === lang) a.setAttribute("aria-current", "page");
      if (!a.dataset.allegra) {
        a.dataset.allegra = "1";
        a.addEventListener("click", (event) => event.stopPropagation());
      }
    }
  }

  // ------------------------------------------------------------------ zoom

  let dialog = null;

  function openZoom(img) {
    if (!dialog) {
      dialog = document.createElement("dialog");
      dialog.className = "allegra-zoom";
      dialog.addEventListener("click", () => dialog.close());
      document.body.append(dialog);
    }
    const big = new Image();
    big.src = img.currentSrc || img.src;
    big.alt = img.alt;
    const close = document.createElement("button");
    close.type = "button";
    close.className = "allegra-zoom__close";
    close.textContent = "\u00d7";
    close.setAttribute("aria-label", words().close);
    dialog.replaceChildren(close, big);
    dialog.showModal();
  }

  function zoom() {
    for (const img of document.querySelectorAll("figure.allegra-figure img")) {
      if (img.dataset.allegra) continue;
      img.dataset.allegra = "1";
      img.tabIndex = 0;
      img.setAttribute("role", "button");
      img.title = words().enlarge;
      img.addEventListener("click", () => openZoom(img));
      img.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          openZoom(img);
        }
      });
    }
  }

  // ------------------------------------------------------------ wide content

  // A picture of the table has a second drawing for a phone (the seats one under the
  // other; the charts narrower), which the stylesheet shows in its place there
  // (`content: url(...)`, written by docs/generate.py): no script is needed for it,
  // and the `src` stays the wide drawing, which the zoom shows full size.
  //
  // A picture without one, fitted to a phone's screen, could show its labels a few
  // pixels high. There it is drawn at least wide enough for its smallest text to be
  // READABLE_PX high, and scrolls sideways inside its own box when that is wider than
  // the screen. A box whose content goes on to the left or right fades at that edge.
  const PHONE = "(max-width: 44.9375em)";
  const READABLE_PX = 11;
  const smallest = new Map();

  // The drawing a picture shows: the stylesheet's narrow one, or its source.
  function shown(img) {
    const content = /^url\("?(.*?)"?\)$/.exec(getComputedStyle(img).content || "");
    return content ? new URL(content[1], location.href).href : img.currentSrc || img.src;
  }

  function fontSize(el) {
    for (let e = el; e && e.getAttribute; e = e.parentNode) {
      const styled = /font-size:\s*([\d.]+)/.exec(e.getAttribute("style") || "");
      const size = parseFloat(styled ? styled[1] : e.getAttribute("font-size"));
      if (size > 0) return size;
    }
    return 16;
  }

  // The width of an SVG picture's viewBox and its smallest font size, in its own units.
  function pictureText(url) {
    if (!smallest.has(url)) {
      const info = fetch(url)
        .then((answer) => (answer.ok ? answer.text() : ""))
        .then((text) => {
          const svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
          const box = (svg.getAttribute("viewBox") || "").trim().split(/[\s,]+/).map(Number);
          const width = box.length === 4 ? box[2] : parseFloat(svg.getAttribute("width"));
          let font = Infinity;
          for (const t of svg.querySelectorAll("text")) font = Math.min(font, fontSize(t));
          return width > 0 && Number.isFinite(font) ? { width, font } : null;
        })
        .catch(() => null);
      smallest.set(url, info);
    }
    return smallest.get(url);
  }

  function edges(box) {
    const update = () => {
      const end = box.scrollWidth - box.clientWidth;
      box.classList.toggle("allegra-more-left", box.scrollLeft > 1);
      box.classList.toggle("allegra-more-right", box.scrollLeft < end - 1);
    };
    if (!box.dataset.allegraEdges) {
      box.dataset.allegraEdges = "1";
      box.addEventListener("scroll", update, { passive: true });
    }
    update();
  }

  function readable(img) {
    const src = img.src;
    const url = shown(img);
    const box = img.parentElement;
    if (!matchMedia(PHONE).matches) {
      img.style.minWidth = "";
      img.dataset.readable = src;
      edges(box);
      return;
    }
    pictureText(url).then((info) => {
      if (img.src !== src) return; // another replay frame by now
      // A narrow drawing fits the screen (its text is readable there): no minimum.
      const fits = info && (READABLE_PX * info.width) / info.font <= box.clientWidth;
      img.style.minWidth = info && !fits ? `${Math.ceil((READABLE_PX * info.width) / info.font)}px` : "";
      img.dataset.readable = src; // (the tests wait for it)
      edges(box);
    });
  }

  function pictures() {
    for (const img of document.querySelectorAll(".md-typeset img")) {
      if (!/\.svg([?#]|$)/.test(img.getAttribute("src") || "")) continue;
      if (!img.parentElement.classList.contains("allegra-scroll")) {
        const box = element("div", { className: "allegra-scroll" });
        img.replaceWith(box);
        box.append(img);
        img.addEventListener("load", () => readable(img));
      }
      if (img.complete) readable(img);
    }
    // A column of sentences keeps a readable width when a table scrolls.
    for (const cell of document.querySelectorAll(".md-typeset table:not([class]) td")) {
      let words = cell.textContent.length;
      for (const code of cell.querySelectorAll("code")) words -= code.textContent.length;
      if (words > 60) cell.classList.add("allegra-prose");
    }
    stackTables();
    for (const wrap of document.querySelectorAll(".md-typeset__scrollwrap")) edges(wrap);
  }

  // On a phone a table wider than the screen is read row by row instead: each row a
  // block, each cell on its own line under its column's header (`data-label`, shown
  // by the stylesheet). A table that fits keeps its columns.
  function stackTables() {
    const phone = matchMedia(PHONE).matches;
    for (const table of document.querySelectorAll(".md-typeset table:not([class])")) {
      if (!table.dataset.allegraLabels) {
        table.dataset.allegraLabels = "1";
        const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
        for (const row of table.querySelectorAll("tbody tr")) {
          [...row.children].forEach((cell, k) => {
            if (heads[k]) cell.dataset.label = heads[k];
            if (!cell.textContent.trim()) cell.dataset.allegraEmpty = "1";
          });
        }
      }
      delete table.dataset.allegraStacked;
      for (const code of table.querySelectorAll("code.allegra-long")) code.classList.remove("allegra-long");
      if (!phone) continue;
      const box = table.closest(".md-typeset__scrollwrap") || table.parentElement;
      if (table.getBoundingClientRect().width > box.clientWidth + 1 || box.scrollWidth > box.clientWidth + 1) {
        table.dataset.allegraStacked = "1";
        // A name longer than the whole line breaks after all, where it must.
        for (const code of table.querySelectorAll("td code.allegra-word")) {
          const cell = code.closest("td");
          const room = cell.clientWidth - parseFloat(getComputedStyle(cell).paddingLeft) - parseFloat(getComputedStyle(cell).paddingRight);
          if (code.getBoundingClientRect().width > room) code.classList.add("allegra-long");
        }
      }
    }
  }

  // ---------------------------------------------------------------- replay

  function element(tag, props, children) {
    const el = document.createElement(tag);
    Object.assign(el, props || {});
    for (const child of children || []) el.append(child);
    return el;
  }

  function replay(root) {
    if (root.dataset.ready) return;
    const data = root.parentElement.querySelector("script.allegra-replay__data");
    const img = root.querySelector("img");
    if (!data || !img) return;
    root.dataset.ready = "1";
    const steps = JSON.parse(data.textContent);
    const base = new URL(".", img.src);
    const w = words();
    const prev = element("button", { type: "button", className: "md-button", textContent: "\u25c0 " + w.previous });
    const next = element("button", { type: "button", className: "md-button md-button--primary", textContent: w.next + " \u25b6" });
    const slider = element("input", { type: "range", min: "0", max: String(steps.length - 1), value: "0" });
    slider.setAttribute("aria-label", w.step);
    const counter = element("span", { className: "allegra-replay__counter" });
    counter.setAttribute("aria-live", "polite");
    const narration = element("div", { className: "allegra-replay__narration" });
    narration.setAttribute("aria-live", "polite");
    const viewer = element("div", { className: "allegra-replay__viewer" });
    (img.closest("p") || img).replaceWith(viewer);
    viewer.append(img, narration);
    root.prepend(element("div", { className: "allegra-replay__controls" }, [prev, next, slider, counter]));
    const fromHash = /^#step-(\d+)$/.exec(location.hash);
    let current = fromHash ? Math.min(Number(fromHash[1]), steps.length - 1) : 0;

    function show(k, remember = true) {
      current = Math.max(0, Math.min(steps.length - 1, k));
      const step = steps[current];
      img.src = new URL(step.frame, base).href;
      img.alt = step.text;
      narration.replaceChildren(element("p", { textContent: step.text }));
      counter.textContent = `${w.step} ${current} ${w.of} ${steps.length - 1}`;
      slider.value = String(current);
      prev.disabled = current === 0;
      next.disabled = current === steps.length - 1;
      root.dataset.step = String(current);
      if (remember) history.replaceState(null, "", `#step-${current}`);
      for (const near of [current - 1, current + 1]) {
        if (near >= 0 && near < steps.length) new Image().src = new URL(steps[near].frame, base).href;
      }
    }

    window.addEventListener("hashchange", () => {
      const asked = /^#step-(\d+)$/.exec(location.hash);
      if (asked && root.isConnected) show(Number(asked[1]), false);
    });
    prev.addEventListener("click", () => show(current - 1));
    next.addEventListener("click", () => show(current + 1));
    slider.addEventListener("input", () => show(Number(slider.value)));
    document.addEventListener("keydown", (event) => {
      if (!root.isConnected || event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.target;
      if (target instanceof HTMLElement && target.closest("input, textarea, select, [contenteditable]")) return;
      const moves = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
      if (event.key in moves) {
        event.preventDefault();
        show(current + moves[event.key]);
      } else if (event.key === "Home") {
        event.preventDefault();
        show(0);
      } else if (event.key === "End") {
        event.preventDefault();
        show(steps.length - 1);
      }
    });
    show(current, false);
  }

  // ---------------------------------------------------------------- tables

  // CSS keeps a table's words whole, but a browser still breaks a line after a hyphen
  // (`search-hard`, `--bots`). A name in a cell is one word: keep it on one line.
  function tableWords() {
    for (const code of document.querySelectorAll(".md-typeset table:not([class]) td code")) {
      if (!/\s/.test(code.textContent.trim())) code.classList.add("allegra-word");
    }
  }

  // ----------------------------------------------------------------- start

  function start() {
    languages();
    zoom();
    for (const root of document.querySelectorAll(".allegra-replay")) replay(root);
    tableWords();
    pictures();
    // Material wraps the tables in their scroll boxes once the page is shown.
    requestAnimationFrame(() => requestAnimationFrame(pictures));
  }

  matchMedia(PHONE).addEventListener("change", pictures);
  window.addEventListener("resize", () => {
    stackTables();
    for (const box of document.querySelectorAll(".allegra-scroll, .md-typeset__scrollwrap")) edges(box);
  });

  window.addEventListener("hashchange", languages);
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(start); // Material: also after instant navigation
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
