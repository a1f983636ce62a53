// Where extracted data sits on the page, so that a rerun reads the same places with no model.
// A place is structure, never coordinates: a CSS path from <body> (or from an element with a
// stable id) and how the value is read from the text found there.
//   {"at": SEL, "as": KIND}                        one value
//   {"each": SEL, "as": KIND}                      a list of values
//   {"each": SEL, "fields": {NAME: {"at": REL, "as": KIND}}}   a list of records, REL under each
//   {"fields": {NAME: PLACE}}                      an object
//   {"any": [{"at": SEL, "as": KIND}, …]}          one value written in spots as steady as each other
// KIND: "text"; "number" (the one number in the text); "part" (the text between `before` and
// `after`); "map" (the value each text stood for when it was recorded, in `texts`).
([mode, arg]) => {
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const NUMBER = /-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)/g;
  const numberIn = (text) => {
    const found = text.match(NUMBER);
    return found && found.length === 1 ? Number(found[0].replace(/,/g, "")) : null;
  };
  const stable = (id) => id && !/\d{3,}|[0-9a-f]{8,}|^:r/i.test(id) ? id : "";
  const nth = (e) => {
    let n = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) n += 1;
    return n;
  };
  const step = (e) => `${e.tagName.toLowerCase()}:nth-of-type(${nth(e)})`;
  const absolute = (e) => {
    const steps = [];
    for (let n = e; n && n !== document.body && n !== document.documentElement; n = n.parentElement) {
      if (stable(n.id) && document.querySelectorAll(`#${CSS.escape(n.id)}`).length === 1) {
        steps.unshift(`#${CSS.escape(n.id)}`);
        return steps;
      }
      steps.unshift(step(n));
    }
    steps.unshift("body");
    return steps;
  };
  const relative = (e, root) => {
    const steps = [];
    for (let n = e; n && n !== root; n = n.parentElement) steps.unshift(step(n));
    return steps.length ? ":scope > " + steps.join(" > ") : ":scope";
  };
  const listed = () => (window.__goalbot && window.__goalbot.elements) || [];
  const rootOf = (scope) => (scope ? listed()[scope - 1] : null) || document.body;

  // Elements holding text of their own: where a value is written.
  const owners = (root) => {
    const found = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let e = root; e; e = walker.nextNode()) {
      if (["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"].includes(e.tagName)) continue;
      const own = [...e.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
      if (own) found.push({ el: e, text: squash(e.textContent) });
    }
    return found;
  };
  // How `value` is written in `text`, best first; null when it is not.
  const howWritten = (value, text) => {
    if (typeof value === "number") {
      if (text === String(value)) return { as: "number", exact: true };
      return numberIn(text) === value ? { as: "number", exact: false } : null;
    }
    if (typeof value !== "string" || !value.trim()) return null;
    const wanted = squash(value);
    if (text === wanted) return { as: "text", exact: true };
    const at = text.indexOf(wanted);
    if (at < 0) return null;
    return { as: "part", before: text.slice(0, at), after: text.slice(at + wanted.length), exact: false };
  };
  const candidates = (all, value) => {
    const hits = [];
    for (const o of all) {
      const how = howWritten(value, o.text);
      if (how) hits.push({ el: o.el, how });
    }
    const exact = hits.filter((h) => h.how.exact);
    return exact.length ? exact : hits;
  };
  const isScalar = (v) => v === null || ["string", "number", "boolean"].includes(typeof v);
  const place = (how) => {
    const p = { as: how.as };
    if (how.as === "part") { p.before = how.before; p.after = how.after; }
    return p;
  };

  // How surely a spot shows the same thing on a later visit, when a value is written in several:
  // a heading or caption says what the page holds ("12 rows where …"); words of its own label it;
  // a stable id anchors it; written as the value alone it is that value. A row of a list (a
  // facet, a table row) moves or changes when the data does.
  const HEADING = "h1, h2, h3, h4, h5, h6, caption, legend, [role=heading]";
  const ROW = "li, tr, dd, option, [role=row], [role=listitem], [role=option]";
  // The words of a field's name ("open_tickets": open, ticket), to tell its label by.
  const wordsOf = (name) => (name || "").toLowerCase().split(/[^\p{L}]+/u).filter((w) => w.length >= 3)
    .map((w) => w.replace(/s$/, ""));
  const steadiness = (hit, at, named) => {
    let score = hit.how.exact ? 1 : 0;
    if (hit.el.closest(HEADING)) score += 2;
    const rest = hit.how.as === "part" ? hit.how.before + hit.how.after
      : hit.how.as === "number" ? hit.text.replace(NUMBER, "") : "";
    if (/\p{L}{3}/u.test(rest)) score += 1;
    // Labelled by the very words the data is asked by ("12 rows where …" for `rows`, "Price" in
    // the cell before `price`) comes before all else: a heading that happens to hold the same
    // number ("12 results") is not the price.
    const label = `${rest} ${squash(hit.el.previousElementSibling && hit.el.previousElementSibling.textContent)}`
      .toLowerCase();
    if (named.length && named.some((w) => label.includes(w))) score += 10;
    if (at[0].startsWith("#")) score += 1;
    if (hit.el.closest(ROW)) score -= 2;
    return score;
  };
  const MOST_PLACES = 4;
  // The place of a single value anywhere under `root`. Written in several spots, the steadiest is
  // kept; spots as steady as each other are all kept ({"any": […]}), and must agree when read.
  const locateValue = (all, value, name) => {
    const named = wordsOf(name);
    const hits = [];
    for (const o of all) {
      const how = howWritten(value, o.text);
      if (how) hits.push({ el: o.el, text: o.text, how });
    }
    if (!hits.length) return null;
    const scored = hits.map((hit) => {
      const at = absolute(hit.el);
      return { score: steadiness(hit, at, named), spot: { at: at.join(" > "), ...place(hit.how) } };
    });
    const best = Math.max(...scored.map((s) => s.score));
    const kept = scored.filter((s) => s.score === best).map((s) => s.spot);
    if (kept.length > MOST_PLACES) return null;  // everywhere alike: no spot says it is the one
    return kept.length === 1 ? kept[0] : { any: kept };
  };

  // One selector for elements alike in shape: the steps all of them share, positions kept where equal.
  const generalise = (elements) => {
    const paths = elements.map(absolute);
    if (paths.some((p) => p.length !== paths[0].length)) return null;
    const steps = paths[0].map((s, i) => {
      if (paths.every((p) => p[i] === s)) return s;
      const tags = paths.map((p) => p[i].replace(/:nth-of-type\(\d+\)$/, ""));
      return tags.every((t) => t === tags[0]) ? tags[0] : null;
    });
    return steps.includes(null) ? null : steps.join(" > ");
  };

  const locateRecords = (all, records) => {
    const names = [...new Set(records.flatMap((r) => Object.keys(r)))];
    if (!names.length || records.some((r) => Object.values(r).some((v) => !isScalar(v)))) return null;
    const hits = records.map((r) => Object.fromEntries(
      names.filter((n) => n in r).map((n) => [n, candidates(all, r[n])])));
    // Each record's anchor: a value written once on the page; its row is the lowest box around
    // it holding every value of the record that can be found, and no other record's anchor.
    const anchors = hits.map((h) => {
      const name = names.find((n) => h[n] && h[n].length === 1);
      return name ? h[name][0].el : null;
    });
    if (anchors.includes(null)) return null;
    const roots = anchors.map((anchor, i) => {
      const wanted = names.filter((n) => hits[i][n] && hits[i][n].length);
      for (let box = anchor; box && box !== document.body; box = box.parentElement) {
        if (anchors.some((other, j) => j !== i && box.contains(other))) return null;
        if (wanted.every((n) => hits[i][n].some((h) => box.contains(h.el)))) return box;
      }
      return null;
    });
    if (roots.includes(null) || new Set(roots).size !== roots.length) return null;
    // A row is as wide as it can be while no two meet: a card with its button, a table's whole row.
    let rows = roots;
    while (records.length > 1) {
      const up = rows.map((r) => r.parentElement);
      if (up.some((u) => !u || u === document.body) || new Set(up).size !== up.length) break;
      rows = up;
    }
    const each = generalise(rows);
    if (!each) return null;
    const fields = {};
    for (const name of names) {
      const votes = new Map();
      records.forEach((record, i) => {
        for (const h of (hits[i][name] || []).filter((h) => rows[i].contains(h.el))) {
          const key = JSON.stringify([relative(h.el, rows[i]), place(h.how)]);
          votes.set(key, (votes.get(key) || 0) + 1);
        }
      });
      const best = [...votes.entries()].sort((a, b) => b[1] - a[1])[0];
      if (best && best[1] === records.length) {
        const [at, how] = JSON.parse(best[0]);
        fields[name] = { at, ...how };
      }
    }
    // What cannot be searched for (true/false, a word the page writes differently): the cell
    // whose text stands for the same value in every record.
    const used = new Set(Object.values(fields).map((f) => f.at));
    for (const name of names.filter((n) => !(n in fields))) {
      const values = records.map((r) => r[name]);
      if (!values.every(isScalar)) return null;
      const cells = owners(rows[0]).map((o) => relative(o.el, rows[0])).filter((at) => !used.has(at));
      const fits = cells.map((at) => {
        const texts = {};
        for (let i = 0; i < records.length; i += 1) {
          const cell = rows[i].querySelector(at);
          if (!cell) return null;
          const text = squash(cell.textContent);
          if (text in texts && texts[text] !== values[i]) return null;
          texts[text] = values[i];
        }
        const distinct = new Set(values.map((v) => JSON.stringify(v))).size;
        return Object.keys(texts).length === distinct ? { at, as: "map", texts } : null;
      }).filter(Boolean);
      if (!fits.length) return null;
      fields[name] = fits[0];
      used.add(fits[0].at);
    }
    const everyRow = [...document.querySelectorAll(each)];
    const drawnRows = everyRow.filter((row) => isRow(row, { fields }));
    return { place: { each, fields }, positions: rows.map((r) => everyRow.indexOf(r)), drawn: drawnRows.length,
             leads: rows.every((r, i) => drawnRows[i] === r) };
  };

  const locate = (all, data, name = "") => {
    if (isScalar(data)) {
      const at = locateValue(all, data, name);
      return at ? { place: at, positions: [] } : null;
    }
    if (Array.isArray(data)) {
      if (!data.length) return null;
      if (data.every((v) => v && typeof v === "object" && !Array.isArray(v))) return locateRecords(all, data);
      if (!data.every(isScalar)) return null;
      const cells = data.map((v) => candidates(all, v));
      if (cells.some((c) => c.length !== 1)) return null;
      const each = generalise(cells.map((c) => c[0].el));
      return each ? { place: { each, ...place(cells[0][0].how) }, positions: [] } : null;
    }
    const fields = {};
    let list = { positions: [] };
    for (const [name, value] of Object.entries(data)) {
      const found = locate(all, value, name);
      if (!found) return null;
      fields[name] = found.place;
      if (found.positions.length) list = found;
    }
    return { place: { fields }, positions: list.positions, drawn: list.drawn || 0, leads: !!list.leads };
  };

  // How many records the page says its list holds ("5,000 rows"; with `of`, "1–40 of 5,000"),
  // in its visible text outside the rows themselves (`skip`, their selector). The same number
  // written in a heading and again in a paragraph is one count; different numbers say none.
  const NOUNS = ["items", "rows", "results", "records", "entries", "orders", "products"];
  const COUNT = "(?<![\\p{L}\\p{N}.,])(\\d{1,3}(?:[,\\u00a0\\u202f]\\d{3})+|\\d+)";
  const visibleText = (skip) => {
    const parts = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const parent = t.parentElement;
      if (!parent || !t.textContent.trim() || parent.closest("script, style, noscript, template")) continue;
      if (skip && parent.closest(skip)) continue;
      if (parent.checkVisibility && !parent.checkVisibility()) continue;
      parts.push(t.textContent);
    }
    return squash(parts.join(" "));
  };
  const saidTotal = (where, skip, withOf) => {
    const own = wordsOf(String(where || "").split("/").filter((w) => !/^\d+$/.test(w)).pop() || "");
    const nouns = [...NOUNS, ...own.map((w) => `${w}(?:s|es)?`)].join("|");
    const pattern = new RegExp(`${COUNT}\\s+(?:${nouns})(?![\\p{L}\\p{N}])`
      + (withOf ? `|(?<![\\p{L}\\p{N}])of\\s+${COUNT}(?![\\p{L}\\p{N}])` : ""), "giu");
    let text;
    try { text = visibleText(skip); } catch { text = visibleText(null); }
    const counts = new Set([...text.matchAll(pattern)].map((m) => Number((m[1] || m[2]).replace(/\D/g, ""))));
    return counts.size === 1 ? [...counts][0] : null;
  };
  // What a list shows while it loads, never data: a word for loading, an ellipsis alone, a row
  // marked busy or drawn as a skeleton. An empty cell may be a row still filling, or just empty.
  const LOADING = new RegExp("^(?:[.…·\\s]+|(?:\\S+\\s+){0,2}(?:(?<!\\p{L})(?:loading|fetching|please wait|chargement"
    + "|cargando|carregando|caricamento|wird geladen|lädt|загрузка)|로딩|불러오는|読み込み|読込|加载|載入)\\p{L}{0,2}"
    + "(?:\\s+\\S{1,12}){0,2}?\\s*(?:…|\\.{2,})?)$", "iu");
  const SKELETON = "[aria-busy=true], [class*=skeleton], [class*=shimmer]";
  const isLoading = (text, el) => (!!text && LOADING.test(text) && !/\d/.test(text))
    || !!(el && el.closest && el.closest(SKELETON));
  const WAIT_LOADING = 15000, WAIT_EMPTY = 1000;  // ms a read waits for rows to fill
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  let loading = [], empty = 0;

  // Reading a place: `misses` says what was there but could not be read as recorded.
  const misses = [];
  const readText = (el, p, where) => {
    if (!el) return undefined;
    const text = squash(el.textContent);
    if (isLoading(text, el)) {
      loading.push(`${where || "the value"}: still ${JSON.stringify(text || "loading")} after ${WAIT_LOADING / 1000} s`);
      misses.push(loading[loading.length - 1]);
      return undefined;
    }
    if (!text) empty += 1;
    switch (p.as) {
      case "number": {
        const n = numberIn(text);
        if (n === null) misses.push(`${where}: ${JSON.stringify(text)} holds no one number`);
        return n === null ? undefined : n;
      }
      case "part": {
        if (!text.startsWith(p.before || "") || !text.endsWith(p.after || "")) {
          misses.push(`${where}: ${JSON.stringify(text)} is not written as it was`);
          return undefined;
        }
        return text.slice((p.before || "").length, text.length - (p.after || "").length);
      }
      case "map":
        if (!(text in (p.texts || {}))) {
          misses.push(`${where}: ${JSON.stringify(text)} was not seen when the recipe was recorded`);
          return undefined;
        }
        return p.texts[text];
      default:
        return text;
    }
  };
  // A list that draws only the rows on screen (a virtualised grid) sits in a box that scrolls
  // further: its rows are gathered by scrolling it through, each by where it sits in the box.
  const MOST_ROWS = 10000, MOST_STEPS = 1000;
  const scroller = (row) => {
    for (let n = row && row.parentElement; n && n !== document.body; n = n.parentElement) {
      const style = getComputedStyle(n);
      if (/(auto|scroll)/.test(style.overflowY) && n.scrollHeight > n.clientHeight + 2) return n;
    }
    return null;
  };
  const drawn = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  // A row with none of the record's cells is none of its rows: a spacer that gives a virtualised
  // list its height, a sentinel an endless one watches.
  const isRow = (row, p) => Object.values(p.fields).some((f) => row.querySelector(f.at));
  const rowsOf = (p, where) => {
    const rows = [...document.querySelectorAll(p.each)];
    if (!p.fields) return rows.map((r, i) => [r, readText(r, p, `${where}/${i}`)]);
    const loadingRow = (row) => isLoading(squash(row.textContent), row);
    return rows.filter((row) => isRow(row, p) || loadingRow(row)).map((row, i) => {
      const record = {};
      const whole = squash(row.textContent);
      if (loadingRow(row)) {
        loading.push(`${where}/${i}: still ${JSON.stringify(whole || "loading")} after ${WAIT_LOADING / 1000} s`);
        misses.push(loading[loading.length - 1]);
        return [row, record];
      }
      for (const [name, f] of Object.entries(p.fields)) {
        const value = readText(row.querySelector(f.at), f, `${where}/${i}/${name}`);
        if (value !== undefined) record[name] = value;
      }
      return [row, record];
    });
  };
  let scrolled = false, total = null;
  // `read()` again while what it read is still loading, until it fills or the wait is over:
  // its value, and whether it filled. What never filled stays a miss, never data.
  const settled = async (read) => {
    const start = performance.now();
    for (;;) {
      const before = misses.length;
      loading = [];
      empty = 0;
      const value = await read();
      const waited = performance.now() - start;
      if (!loading.length && (!empty || waited > WAIT_EMPTY)) return [value, true];
      if (loading.length && waited > WAIT_LOADING) return [value, false];
      misses.splice(before);
      await pause(50);
    }
  };
  // At its end, an endless list fetches its next page and grows: waited for, unless the page's
  // count says every row is read already.
  const WAIT_GROW = 3000;
  const grows = async (box, count, where, each) => {
    const said = saidTotal(where, each, true);
    if (said !== null && count >= said) return false;
    const height = box.scrollHeight, until = performance.now() + WAIT_GROW;
    while (performance.now() < until) {
      await pause(50);
      if (box.scrollHeight > height) return true;
    }
    return false;
  };
  const gathered = async (p, where, box) => {
    scrolled = true;
    const start = box.scrollTop, byOffset = new Map();
    const offset = (row) => Math.round(row.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop);
    box.scrollTop = 0;
    await drawn();
    for (let steps = 0; steps < MOST_STEPS && byOffset.size < MOST_ROWS; steps += 1) {
      const [rows, filled] = await settled(() => rowsOf(p, where));
      for (const [row, value] of rows) byOffset.set(offset(row), value);
      if (!filled) break;  // rows that never filled: what follows would be read short too
      const before = box.scrollTop;
      const bottoms = rows.map(([row]) => row.getBoundingClientRect().bottom - box.getBoundingClientRect().top);
      box.scrollTop += Math.max(box.clientHeight * 0.8, Math.max(0, ...bottoms) - 30);
      if (box.scrollTop === before && !(await grows(box, byOffset.size, where, p.each))) break;
      await drawn();
    }
    box.scrollTop = start;
    const values = [...byOffset.entries()].sort((a, b) => a[0] - b[0]).map(([, value]) => value);
    // The page's own count of the list, when it says one ("5,000 items"): a list read short is a miss.
    const said = saidTotal(where, p.each, true);
    if (total === null) total = said;
    if (said !== null && said !== values.length) {
      misses.push(`${where || "the list"}: ${values.length} rows were read, and the page says ${said}`);
    }
    return values;
  };
  // A value kept in several spots: each is read, and they must say the same. A spot gone from the
  // page, or no longer written as it was, says nothing; two that disagree are a miss that names
  // both, never a silent pick.
  const readAny = (spots, where) => {
    const said = [], wrong = [];
    for (const spot of spots) {
      const el = document.querySelector(spot.at);
      if (!el) continue;
      const before = misses.length;
      const value = readText(el, spot, where || spot.at);
      const failed = misses.splice(before);
      if (value !== undefined && !failed.length) said.push([spot.at, value]);
      else wrong.push(...failed);
    }
    const what = where || "the value";
    if (!said.length) {
      misses.push(...(wrong.length ? wrong : [`${what}: none of the places it was written in is on the page now`]));
      return undefined;
    }
    if (new Set(said.map(([, value]) => JSON.stringify(value))).size > 1) {
      misses.push(`${what}: the places it was written in disagree now: `
        + said.map(([at, value]) => `${at} says ${JSON.stringify(value)}`).join("; "));
      return undefined;
    }
    return said[0][1];
  };
  const read = async (p, where) => {
    if (Array.isArray(p.any)) return readAny(p.any, where);
    if (p.at !== undefined && p.each === undefined) return readText(document.querySelector(p.at), p, where);
    if (p.each !== undefined) {
      const rows = rowsOf(p, where);
      // A list place was recorded where rows were: none now is a page redrawn another way (a
      // table turned into cards), not an empty list, which would fit its schema all the same.
      if (!rows.length) misses.push(`${where || "the list"}: the recorded rows (${p.each}) match nothing on the page now`);
      const box = rows.length ? scroller(rows[0][0]) : null;
      // Every row drawn already (a plain long table in a scrolling box): nothing to gather.
      const span = rows.length ? rows[rows.length - 1][0].getBoundingClientRect().bottom
        - rows[0][0].getBoundingClientRect().top : 0;
      if (box && span < box.scrollHeight * 0.9) return gathered(p, where, box);
      // Every row drawn: the page's count of them ("12 quotes") says whether that is the list.
      const said = saidTotal(where, p.each, false);
      if (total === null) total = said;
      if (said !== null && said > rows.length) {
        misses.push(`${where || "the list"}: ${rows.length} rows were read, and the page says ${said}`);
      }
      return rows.map(([, value]) => value);
    }
    const object = {};
    for (const [name, f] of Object.entries(p.fields || {})) {
      const value = await read(f, where ? `${where}/${name}` : name);
      if (value !== undefined) object[name] = value;
    }
    return object;
  };

  switch (mode) {
    case "text":
      return (rootOf(arg).innerText || "").replace(/\n{3,}/g, "\n\n").trim();
    case "locate":
      try { return locate(owners(rootOf(arg.scope)), arg.data); } catch { return null; }
    case "read":
      // A scrolled list waits for its rows as it goes; anything else is read again while loading.
      return settled(async () => {
        const data = await read(arg, "");
        if (scrolled) { loading = []; empty = 0; }
        return data;
      }).then(
        ([data]) => ({ data: data === undefined ? null : data, misses, scrolled, total }),
        (e) => ({ data: null, misses: [`the recorded place cannot be read: ${e.message}`] }));
    case "shown": {
      // What the page shows of a list: its count, and the data rows of its tables and grids
      // whose column heads name a field of the list's records ("Price" for `price`).
      const root = rootOf(arg.scope);
      const named = (arg.fields || []).flatMap(wordsOf);
      const heads = (grid) => squash([...grid.querySelectorAll("th, [role=columnheader]")]
        .map((h) => h.textContent).join(" ")).toLowerCase();
      const grids = [...root.querySelectorAll("table, [role=grid], [role=table], [role=treegrid]")]
        .filter((grid) => !named.length || named.some((w) => heads(grid).includes(w)));
      const rows = new Set(grids.flatMap((grid) => [...grid.querySelectorAll("tr, [role=row]")]).filter((r) =>
        !r.closest("thead") && r.querySelector("td, [role=gridcell], [role=cell]") && squash(r.textContent)
        && !isLoading(squash(r.textContent), r)));
      return { said: saidTotal(arg.noun, null, false), rows: rows.size };
    }
    case "item": {
      let row;
      try { row = document.querySelectorAll(arg.each)[arg.nth]; } catch { return []; }
      if (!row) return [];
      const found = [];
      listed().forEach((e, i) => { if (e === row || row.contains(e)) found.push(i + 1); });
      return found;
    }
  }
  return null;
}
