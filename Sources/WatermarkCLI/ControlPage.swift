import WatermarkModel

/// The control page served at `/`: plain HTML, CSS and JavaScript in the binary, no
/// framework. The live snapshot (twice a second), the layers with text, colour, opacity and
/// anchor controls, a drag on the preview that moves the selected layer (x/y), and the
/// status line. With a token, it asks once and keeps it for the tab (sessionStorage).
enum ControlPage {
    static var anchors: String {
        "[" + WatermarkProperties.anchorChoice.nicks.map(JSONText.quoted).joined(separator: ",") + "]"
    }

    static var html: String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width,initial-scale=1">
        <title>gst-watermark control</title>
        <style>
        body{font:15px system-ui,sans-serif;margin:0;background:#111;color:#eee}
        header{padding:8px 12px;background:#222;display:flex;gap:12px;flex-wrap:wrap;align-items:baseline}
        #status{color:#9c9;font-size:13px}
        main{display:flex;flex-wrap:wrap;gap:12px;padding:12px}
        #preview{flex:3 1 480px;position:relative;align-self:flex-start;outline:1px solid #444}
        #snap{width:100%;display:block;background:#000;touch-action:none;cursor:crosshair;min-height:120px;
        user-select:none;-webkit-user-drag:none}
        #layers{flex:1 1 280px;display:flex;flex-direction:column;gap:10px}
        .layer{background:#1d1d1d;border:2px solid #333;border-radius:8px;padding:8px;display:grid;gap:6px}
        .layer.sel{border-color:#4a8}
        .layer label{display:flex;gap:6px;align-items:center;font-size:13px}
        .layer input[type=text]{flex:1;min-width:0;font-size:15px;padding:4px}
        button{font-size:15px;padding:6px 12px}
        #msg{color:#f88;font-size:13px;min-height:1em;padding:0 12px}
        </style></head><body>
        <header><b>gst-watermark</b><span id="status">connecting…</span></header>
        <div id="msg"></div>
        <main><div id="preview"><img id="snap" alt="what is being sent" draggable="false"></div><div id="layers"></div></main>
        <script>
        const anchors = \(anchors);
        let token = sessionStorage.getItem("wm-token");
        let selected = 0, layers = [];
        const $ = (id) => document.getElementById(id);
        function say(t) { $("msg").textContent = t || ""; }
        // One question for the token, however many requests were refused at once.
        let asking = null;
        function askToken() {
          if (!asking) asking = new Promise((done) => setTimeout(() => {
            token = prompt("Control token") || "";
            sessionStorage.setItem("wm-token", token);
            asking = null; done();
          }, 0));
          return asking;
        }
        async function api(method, path, body, retry = true) {
          const headers = {}, sent = token;
          if (token) headers["Authorization"] = "Bearer " + token;
          if (body !== undefined) headers["Content-Type"] = "application/json";
          const r = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
          if (r.status === 401) {
            if (!retry) throw new Error("the token was refused");
            if (token === sent) await askToken();
            return api(method, path, body, false);
          }
          return r;
        }
        // Changes go one at a time, in order (parallel requests could arrive swapped).
        let queue = Promise.resolve(true);
        function patch(index, fields) {
          queue = queue.catch(() => false).then(async () => {
            const r = await api("PATCH", "/api/layers/" + index, fields);
            const j = await r.json();
            if (!r.ok) { say(j.error); return false; }
            say(""); layers[index] = j; return true;
          });
          return queue;
        }
        async function snapshot() {
          try {
            const r = await api("GET", "/api/snapshot.jpg");
            if (r.ok) {
              const url = URL.createObjectURL(await r.blob()), old = $("snap").src;
              $("snap").src = url;
              if (old.startsWith("blob:")) URL.revokeObjectURL(old);
            }
          } catch (e) {}
          setTimeout(snapshot, 500);
        }
        async function status() {
          try {
            const s = await (await api("GET", "/api/status")).json();
            $("status").textContent = [s.fps === null ? "" : s.fps + " fps", s.frames_out + " frames",
              s.frames_dropped + " dropped", s.bitrate_kbps === null ? "" : s.bitrate_kbps + " kbit/s",
              s.encoder, "→ " + s.output, s.last_error ? "error: " + s.last_error : ""].filter(Boolean).join(" · ");
          } catch (e) { $("status").textContent = "not connected"; }
          setTimeout(status, 1000);
        }
        function hex(c) { return "#" + (c || "0xFFFFFFFF").slice(-6); }
        function render() {
          const box = $("layers"); box.textContent = "";
          layers.forEach((l, i) => {
            const d = document.createElement("div");
            d.className = "layer" + (i === selected ? " sel" : "");
            d.onclick = (e) => { if (selected !== i) { selected = i; render(); } };
            const title = document.createElement("b");
            title.textContent = "Layer " + i + (l.image ? " · " + l.image.split("/").pop() : "");
            d.append(title);
            const text = document.createElement("input"); text.type = "text"; text.value = l.text || "";
            text.placeholder = "text"; text.name = "text";
            const color = document.createElement("input"); color.type = "color"; color.value = hex(l.color);
            const opacity = document.createElement("input"); opacity.type = "range";
            opacity.min = 0; opacity.max = 1; opacity.step = 0.05; opacity.value = l.opacity;
            const anchor = document.createElement("select");
            anchors.forEach((a) => { const o = document.createElement("option"); o.value = o.textContent = a;
              o.selected = a === l.anchor; anchor.append(o); });
            const row = (name, el) => { const lab = document.createElement("label"); lab.append(name, el); return lab; };
            d.append(row("Text", text), row("Colour", color), row("Opacity", opacity), row("Anchor", anchor));
            const apply = document.createElement("button"); apply.textContent = "Apply"; apply.name = "apply";
            apply.onclick = async () => {
              const fields = {color: "0xFF" + color.value.slice(1).toUpperCase(), opacity: Number(opacity.value),
                anchor: anchor.value};
              if (text.value !== "" || l.text) fields.text = text.value === "" ? null : text.value;
              if (await patch(i, fields)) render();
            };
            d.append(apply);
            box.append(d);
          });
        }
        async function load() {
          try {
            const r = await api("GET", "/api/layers");
            layers = (await r.json()).layers; render();
          } catch (e) { say(e.message); setTimeout(load, 2000); }
        }
        // Dragging on the preview places the selected layer's anchor point there.
        let dragging = false, lastSent = 0;
        function place(e, final) {
          const r = $("snap").getBoundingClientRect();
          const x = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
          const y = Math.min(1, Math.max(0, (e.clientY - r.top) / r.height));
          const now = Date.now();
          if (!final && now - lastSent < 100) return;
          lastSent = now;
          if (layers[selected]) patch(selected, {x: Math.round(x * 1000) / 1000, y: Math.round(y * 1000) / 1000});
        }
        // (An image would otherwise start the browser's own drag and cancel the pointer.)
        $("snap").addEventListener("dragstart", (e) => e.preventDefault());
        $("snap").addEventListener("pointerdown", (e) => {
          e.preventDefault(); dragging = true; $("snap").setPointerCapture(e.pointerId); place(e, true); });
        $("snap").addEventListener("pointercancel", () => { dragging = false; });
        $("snap").addEventListener("pointermove", (e) => { if (dragging) place(e, false); });
        $("snap").addEventListener("pointerup", (e) => { if (dragging) { dragging = false; place(e, true); } });
        load(); snapshot(); status();
        </script></body></html>
        """
    }
}
