// The front end of every explorer (attn_lib/widgets/_explorer.py): one ES module, no imports, nothing fetched.
//
// The kernel sends a figure's fixed parts once (`spec`: controls, panels, axes, artists, colour maps) and the
// numbers of every position it computed when the explorer was made (`frames_json`, by position key). Moving a control
// draws the frame of the new position from the page at once; the kernel hears of the move (`values`) and sends, as
// messages, the frames around it the page lacks. A position with no frame yet waits for them, and says so.
//
// Drawn on a <canvas> at the device's pixel ratio; the figure's text account is the canvas's aria-label and the
// caption under it, the measured numbers are text beside it. Controls are native inputs with labels: a range
// input (arrows, Home, End, Page Up/Down), a group of radio buttons, a text field.

const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const INK = "#222222"; // text, ticks (15.9:1 on white)
const SPINE = "#444444";
let made = 0; // explorers made in this page: gives each its own element ids

// The layout, once per document: controls in a wrapping row, the readout beside the figure (under it when narrow).
const STYLE = `
.attn-explorer .attn-controls { display: flex; flex-wrap: wrap; gap: 0.3em 1.5em; align-items: center; }
.attn-explorer .attn-control { display: flex; flex-wrap: wrap; gap: 0.2em 0.6em; align-items: center;
  border: 0; margin: 0; padding: 0.1em 0; }
.attn-explorer fieldset.attn-control legend { float: left; padding: 0; margin-right: 0.6em; }
.attn-explorer .attn-control input[type="range"] { width: 16em; }
.attn-explorer .attn-control output { min-width: 3em; font-variant-numeric: tabular-nums; }
.attn-explorer .attn-body { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 0.5em 1em;
  margin-top: 0.3em; }
.attn-explorer .attn-readout { flex: 1 1 12em; min-width: 12em; max-width: 24em; line-height: 1.35; }
.attn-explorer .attn-description { max-width: 60em; line-height: 1.3; font-size: 0.9em; }
.attn-explorer .attn-status { min-height: 1.2em; font-style: italic; }
.attn-explorer :focus-visible { outline: 2px solid #1a5fb4; outline-offset: 2px; }
`;

function addStyle() {
  if (document.getElementById("attn-explorer-style")) return;
  const style = document.createElement("style");
  style.id = "attn-explorer-style";
  style.textContent = STYLE;
  document.head.append(style);
}

// The key of a position: the controls' positions in the spec's order, as JSON (the kernel writes the same). A
// control with `when` [name, position] counts only while control `name` is there: elsewhere the key holds "" (a
// text field) or 0 for it, whatever it holds, as the frame does not depend on it.
export function positionKey(spec, values) {
  return JSON.stringify(spec.controls.map((c) => (!c.when || values[c.when[0]] === c.when[1] ? values[c.name]
    : c.kind === "text" ? "" : 0)));
}

function scaleOf(axis, from, to) {
  const f = axis.log ? Math.log10 : (v) => v;
  const lo = f(axis.min), hi = f(axis.max);
  return (v) => from + ((f(v) - lo) / (hi - lo)) * (to - from);
}

function css(color, alpha) {
  if (alpha === undefined || alpha === 1) return color;
  const n = parseInt(color.slice(1), 16);
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

function drawArtist(ctx, a, X, Y, spec) {
  ctx.globalAlpha = 1;
  if (a.type === "stairs" || a.type === "bars") {
    // stairs: values between consecutive edges; bars: values at positions, each `width` wide. One path, so that
    // neighbouring bars meet without a seam.
    const horizontal = a.orientation === "horizontal";
    const V = horizontal ? X : Y, E = horizontal ? Y : X, base = V(a.baseline ?? 0);
    ctx.fillStyle = css(a.color, a.alpha);
    ctx.beginPath();
    a.values.forEach((v, k) => {
      if (v === null) return;
      const lo = a.type === "stairs" ? a.edges[k] : a.positions[k] - a.width / 2;
      const hi = a.type === "stairs" ? a.edges[k + 1] : a.positions[k] + a.width / 2;
      const e0 = E(lo), e1 = E(hi), v1 = V(v);
      if (horizontal) ctx.rect(Math.min(base, v1), Math.min(e0, e1), Math.abs(v1 - base), Math.abs(e1 - e0));
      else ctx.rect(Math.min(e0, e1), Math.min(base, v1), Math.abs(e1 - e0), Math.abs(v1 - base));
    });
    ctx.fill("nonzero");
  } else if (a.type === "line") {
    ctx.strokeStyle = css(a.color, a.alpha);
    ctx.lineWidth = a.width ?? 2;
    ctx.lineJoin = "round";
    ctx.setLineDash(a.dash ?? []);
    ctx.beginPath();
    let pen = false;
    a.x.forEach((x, k) => {
      const y = a.y[k];
      if (x === null || y === null) { pen = false; return; }
      if (pen) ctx.lineTo(X(x), Y(y)); else ctx.moveTo(X(x), Y(y));
      pen = true;
    });
    ctx.stroke();
    ctx.setLineDash([]);
  } else if (a.type === "markers") {
    a.x.forEach((x, k) => marker(ctx, a, X(x), Y(a.y[k])));
  } else if (a.type === "cells") {
    // values: rows of numbers (null: a blocked cell, drawn in `masked`); row r spans y edges r..r+1.
    const lut = spec.colormaps[a.cmap];
    a.values.forEach((row, r) => row.forEach((v, c) => {
      const x0 = X(a.xedges[c]), x1 = X(a.xedges[c + 1]), y0 = Y(a.yedges[r]), y1 = Y(a.yedges[r + 1]);
      if (v === null) ctx.fillStyle = a.masked;
      else {
        const t = Math.min(1, Math.max(0, (v - a.vmin) / (a.vmax - a.vmin)));
        ctx.fillStyle = lut[Math.round(t * (lut.length - 1))];
      }
      // Half a pixel more on each side, so that neighbouring cells meet without a seam.
      ctx.fillRect(Math.min(x0, x1) - 0.25, Math.min(y0, y1) - 0.25, Math.abs(x1 - x0) + 0.5, Math.abs(y1 - y0) + 0.5);
    }));
  }
}

function marker(ctx, a, x, y) {
  const r = a.size ?? 4;
  ctx.lineWidth = a.linewidth ?? 1.5;
  ctx.strokeStyle = a.color;
  ctx.fillStyle = a.fill ?? a.color;
  ctx.beginPath();
  if (a.shape === "x") {
    ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r); ctx.moveTo(x - r, y + r); ctx.lineTo(x + r, y - r);
    ctx.stroke();
    return;
  }
  if (a.shape === "square") ctx.rect(x - r, y - r, 2 * r, 2 * r);
  else if (a.shape === "star") {
    for (let k = 0; k < 10; k++) {
      const radius = k % 2 ? r * 0.45 : r, angle = -Math.PI / 2 + (k * Math.PI) / 5;
      ctx[k ? "lineTo" : "moveTo"](x + radius * Math.cos(angle), y + radius * Math.sin(angle));
    }
    ctx.closePath();
  } else ctx.arc(x, y, r, 0, 2 * Math.PI);
  if (a.fill !== "none") ctx.fill();
  ctx.stroke();
}

function drawAxes(ctx, p, X, Y) {
  const [left, top, width, height] = p.rect, bottom = top + height;
  ctx.strokeStyle = SPINE;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(left, top); ctx.lineTo(left, bottom); ctx.lineTo(left + width, bottom);
  ctx.stroke();
  ctx.fillStyle = INK;
  ctx.strokeStyle = INK;
  ctx.font = `10px ${FONT}`;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const [v, label] of p.x.ticks) {
    const x = Math.round(X(v)) + 0.5;
    ctx.beginPath(); ctx.moveTo(x, bottom); ctx.lineTo(x, bottom + 3.5); ctx.stroke();
    if (p.x.vertical) {
      // An x axis's `vertical`: its tick labels read upwards, ending under their ticks (words side by side, e.g. a
      // heatmap's tokens); the panel's `xlabelOffset` (px under the axis) then puts the x label below them.
      ctx.save(); ctx.translate(x, bottom + 5); ctx.rotate(-Math.PI / 2);
      ctx.textAlign = "right"; ctx.textBaseline = "middle"; ctx.fillText(label, 0, 0); ctx.restore();
    } else ctx.fillText(label, x, bottom + 5);
  }
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const [v, label] of p.y.ticks) {
    const y = Math.round(Y(v)) + 0.5;
    ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(left - 3.5, y); ctx.stroke();
    ctx.fillText(label, left - 5, y);
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  ctx.font = `11px ${FONT}`;
  if (p.xlabel) ctx.fillText(p.xlabel, left + width / 2, bottom + (p.xlabelOffset ?? 32));
  if (p.ylabel) {
    ctx.save();
    ctx.translate(left - (p.ylabelOffset ?? 38), top + height / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "bottom";
    ctx.fillText(p.ylabel, 0, 0);
    ctx.restore();
  }
  ctx.font = `12px ${FONT}`;
  if (p.title) ctx.fillText(p.title, left + width / 2, top - 6);
  if (p.legend) {
    ctx.font = `10px ${FONT}`;
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    p.legend.forEach((entry, k) => {
      const y = top + 8 + 14 * k, x = left + 8;
      if (entry.kind === "line") {
        ctx.strokeStyle = entry.color; ctx.lineWidth = 2; ctx.setLineDash(entry.dash ?? []);
        ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 16, y); ctx.stroke(); ctx.setLineDash([]);
      } else if (entry.kind === "marker") marker(ctx, { ...entry, size: 4 }, x + 8, y);
      else { ctx.fillStyle = css(entry.color, entry.alpha); ctx.fillRect(x, y - 4, 16, 8); }
      ctx.fillStyle = INK;
      ctx.fillText(entry.label, x + 22, y);
    });
  }
}

// Draw one frame: every panel, its artists (clipped to the panel) under its axes.
export function paint(canvas, spec, frame) {
  const { width, height } = spec.figure, ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  // Every text drawn, with its box in CSS pixels (canvas.attnTexts): the tests check none runs off the figure.
  const texts = [];
  ctx.fillText = function (text, x, y) {
    const m = this.measureText(text), t = this.getTransform();
    const left = x - m.actualBoundingBoxLeft, right = x + m.actualBoundingBoxRight;
    const top = y - m.actualBoundingBoxAscent, bottom = y + m.actualBoundingBoxDescent;
    const corners = [[left, top], [right, top], [left, bottom], [right, bottom]]
      .map(([a, b]) => [(t.a * a + t.c * b + t.e) / ratio, (t.b * a + t.d * b + t.f) / ratio]);
    const xs = corners.map((c) => c[0]), ys = corners.map((c) => c[1]);
    texts.push({ text, x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) });
    CanvasRenderingContext2D.prototype.fillText.call(this, text, x, y);
  };
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, width, height);
  spec.panels.forEach((base, i) => {
    const p = { ...base, ...((frame.panels || {})[i] || {}) };
    const [left, top, w, h] = p.rect;
    const X = scaleOf(p.x, left, left + w), Y = scaleOf(p.y, top + h, top);
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, w, h);
    ctx.clip();
    if (p.grid) {
      // A panel's `grid` (a colour): thin lines at the ticks of both axes, under the artists.
      ctx.strokeStyle = p.grid;
      ctx.lineWidth = 0.8;
      ctx.beginPath();
      for (const [v] of p.x.ticks) { const x = Math.round(X(v)) + 0.5; ctx.moveTo(x, top); ctx.lineTo(x, top + h); }
      for (const [v] of p.y.ticks) { const y = Math.round(Y(v)) + 0.5; ctx.moveTo(left, y); ctx.lineTo(left + w, y); }
      ctx.stroke();
    }
    for (const a of spec.artists) {
      if (a.panel === i) drawArtist(ctx, { ...a, ...((frame.artists || {})[a.name] || {}) }, X, Y, spec);
    }
    ctx.restore();
    ctx.globalAlpha = 1;
    drawAxes(ctx, p, X, Y);
    if (p.colorbar) drawColorbar(ctx, p.colorbar, spec.colormaps[p.colorbar.cmap]);
  });
  delete ctx.fillText;
  canvas.attnTexts = texts;
}

// A panel's colour bar (its `colorbar`: `rect` [left, top, width, height] in px, `cmap`, `vmin`, `vmax`, `ticks`
// as [value, label] pairs, `label`): the colour map from vmin at the bottom to vmax at the top, ticks and their
// labels on its right, the label beyond them reading upwards (`labelOffset` px from the bar's right edge).
function drawColorbar(ctx, cb, lut) {
  const [left, top, width, height] = cb.rect, right = left + width, bottom = top + height, step = height / lut.length;
  lut.forEach((color, k) => {
    const seam = k + 1 < lut.length ? 0.5 : 0; // half a pixel up into the next strip, so that no seam shows
    ctx.fillStyle = color;
    ctx.fillRect(left, bottom - (k + 1) * step - seam, width, step + seam);
  });
  ctx.strokeStyle = SPINE;
  ctx.lineWidth = 1;
  ctx.strokeRect(left, top, width, height);
  ctx.fillStyle = INK;
  ctx.strokeStyle = INK;
  ctx.font = `10px ${FONT}`;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  for (const [v, label] of cb.ticks) {
    const y = Math.round(bottom - ((v - cb.vmin) / (cb.vmax - cb.vmin)) * height) + 0.5;
    ctx.beginPath(); ctx.moveTo(right, y); ctx.lineTo(right + 3.5, y); ctx.stroke();
    ctx.fillText(label, right + 5, y);
  }
  if (cb.label) {
    ctx.save();
    ctx.font = `11px ${FONT}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    ctx.translate(right + (cb.labelOffset ?? 30), top + height / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText(cb.label, 0, 0);
    ctx.restore();
  }
}

function element(tag, attributes = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// One control: its element, and `show(position)` to set it without sending anything.
function control(c, id, onMove) {
  if (c.kind === "slider") {
    const box = element("div", { class: "attn-control" });
    const input = element("input", { type: "range", id, min: 0, max: c.options.length - 1, step: 1 });
    const output = element("output", { for: id });
    box.append(element("label", { for: id }, c.label), input, output);
    input.addEventListener("input", () => onMove(Number(input.value)));
    return [box, (pos) => {
      input.value = String(pos);
      input.setAttribute("aria-valuetext", c.options[pos]);
      output.textContent = c.options[pos];
    }, input];
  }
  if (c.kind === "choice") {
    const box = element("fieldset", { class: "attn-control" });
    box.append(element("legend", {}, c.label));
    const radios = c.options.map((option, k) => {
      const label = element("label", c.tooltips ? { title: c.tooltips[k] } : {});
      const radio = element("input", { type: "radio", name: id, value: k });
      radio.addEventListener("change", () => { if (radio.checked) onMove(k); });
      label.append(radio, ` ${option}`);
      box.append(label);
      return radio;
    });
    return [box, (pos) => radios.forEach((r, k) => { r.checked = k === pos; }), radios[0]];
  }
  const box = element("div", { class: "attn-control" });
  const input = element("input", { type: "text", id, size: 60 });
  box.append(element("label", { for: id }, c.label), input);
  input.addEventListener("change", () => onMove(input.value));
  return [box, (text) => { input.value = text; }, input];
}

// Frames the kernel sent as messages after the explorer was made, by model, shared by every view of it.
const received = new WeakMap();

function receivedBy(model) {
  // Keyed by the model's `spec` object, not by `model`: anywidget hands initialize and each render a different proxy
  // of the same model, and a store keyed by the proxy would keep the messages away from the views.
  const id = model.get("spec");
  if (!received.has(id)) {
    received.set(id, { saved: JSON.parse(model.get("frames_json")), frames: {}, views: new Set() });
  }
  return received.get(id);
}

function initialize({ model }) {
  model.on("msg:custom", (message) => {
    if (!message.frames) return;
    const store = receivedBy(model);
    Object.assign(store.frames, message.frames);
    store.views.forEach((redraw) => redraw());
  });
}

function render({ model, el }) {
  addStyle();
  const spec = model.get("spec");
  const uid = `attn-${spec.name}-${++made}-${Math.random().toString(36).slice(2, 8)}`;
  let values = { ...model.get("values") };
  // JupyterLab's shortcuts (the arrow keys move between cells) stay out of the explorer: its keys move its controls.
  const root = element("div", { class: `attn-explorer attn-explorer-${spec.name}`, "data-lm-suppress-shortcuts": "" });
  // Nor do the notebook's own key handlers around it (one took ArrowRight from the range input in JupyterLab 4).
  root.addEventListener("keydown", (event) => event.stopPropagation());
  const controls = element("div", { class: "attn-controls" });
  const shows = {};
  spec.controls.forEach((c, k) => {
    // Moving a control with `when` also brings the control it counts with there (a typed sentence: "your own").
    const [box, show, focusable] = control(c, `${uid}-${k}`, (pos) => {
      if (c.when) values = { ...values, [c.when[0]]: c.when[1] };
      move(c.name, pos);
    });
    if (c.main) { box.classList.add("attn-main-control"); focusable.classList.add("attn-main-input"); }
    shows[c.name] = show;
    controls.append(box);
  });
  const figure = element("div", { class: "attn-figure" });
  const { width, height } = spec.figure;
  const canvas = element("canvas", { role: "img", style: `width: ${width}px; height: ${height}px; max-width: 100%` });
  figure.append(canvas);
  const readout = element("div", { class: "attn-readout" });
  const body = element("div", { class: "attn-body" });
  body.append(figure, readout);
  const status = element("div", { class: "attn-status", role: "status" });
  const caption = element("div", { class: "attn-description" });
  root.append(controls, body, status, caption);
  el.append(root);
  let shownKey = null, waiting = null;

  function draw() {
    for (const c of spec.controls) shows[c.name](values[c.name]);
    const key = positionKey(spec, values);
    const store = receivedBy(model), frame = store.saved[key] ?? store.frames[key];
    clearTimeout(waiting);
    if (!frame) {
      status.textContent = "Computing this position…";
      waiting = setTimeout(() => {
        status.textContent = "This position was not computed with the page: with the notebook's kernel running, it " +
          "is computed when you move there. Without one, each control moves from the setting the page was saved with.";
      }, 2000);
      return;
    }
    status.textContent = "";
    if (key === shownKey) return;
    shownKey = key;
    paint(canvas, spec, frame);
    canvas.dispatchEvent(new Event("attn-paint")); // the tests and benchmarks time a move to here
    canvas.setAttribute("aria-label", frame.description);
    readout.replaceChildren(...frame.readout.flatMap(([label, value], k) => {
      const line = element("div");
      line.append(`${label}: `, element("b", {}, value));
      return [line];
    }));
    caption.replaceChildren(element("b", {}, "Figure:"), ` ${frame.description}`);
  }

  function move(name, pos) {
    values = { ...values, [name]: pos };
    draw();
    model.set("values", values);
    try {
      model.save_changes();
    } catch (error) {
      // A model restored from the notebook's saved state has no kernel to tell: the page's frames are all there is.
    }
  }

  const fromKernel = () => { values = { ...model.get("values") }; draw(); };
  model.on("change:values", fromKernel);
  receivedBy(model).views.add(draw);
  draw();
  return () => {
    clearTimeout(waiting);
    model.off("change:values", fromKernel);
    receivedBy(model).views.delete(draw);
  };
}

export default { initialize, render };
