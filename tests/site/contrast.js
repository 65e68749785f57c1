/* Text contrast on the page as rendered: for every visible element with its own text,
   the ratio of its colour to the background behind it (the first opaque background up
   its ancestors, blended over what lies below), against WCAG's 4.5:1 (3:1 for large
   text). Elements over an image or gradient background, and SVG text, are skipped.
   Returns the failures: [{text, ratio, needed, fg, bg}]. */
() => {
  function parse(c) {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  }
  function over(top, bottom) {
    const a = top.a;
    return { r: top.r * a + bottom.r * (1 - a), g: top.g * a + bottom.g * (1 - a),
             b: top.b * a + bottom.b * (1 - a), a: 1 };
  }
  function lum(c) {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  }
  function background(el) {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage && s.backgroundImage !== "none" && !e.matches(".scroll-x, .scroll")) return null;
      const c = parse(s.backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };  // the canvas
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  }
  const failures = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("svg, script, style, noscript, template, [hidden], .visually-hidden")) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim());
    if (!own) continue;
    const box = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    if (!box.width || !box.height || s.visibility === "hidden" || +s.opacity === 0) continue;
    if (el.matches(":disabled") || el.closest("[disabled], [aria-disabled=true]")) continue;  // exempt
    const bg = background(el);
    if (!bg) continue;
    let fg = parse(s.color);
    fg = over(fg, bg);
    const l1 = lum(fg), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(s.fontSize), bold = +s.fontWeight >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < needed - 0.01) {
      failures.push({ text: el.textContent.trim().slice(0, 40), tag: el.tagName, cls: el.className && String(el.className),
                      ratio: Math.round(ratio * 100) / 100, needed, fg: s.color,
                      bg: `rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)})` });
    }
  }
  return failures;
}
