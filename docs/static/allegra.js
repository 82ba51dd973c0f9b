// The allegra-rules docs: the language selector, the picture zoom and the replay viewer.
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

  // ----------------------------------------------------------------- start

  function start() {
    languages();
    zoom();
    for (const root of document.querySelectorAll(".allegra-replay")) replay(root);
  }

  window.addEventListener("hashchange", languages);
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(start); // Material: also after instant navigation
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
