/// The page's stylesheet and icon, served by the binary (no CDN, no web fonts). Colours meet
/// WCAG AA contrast on their backgrounds; the layout is one column on a phone and a grid on a desktop.
enum Stylesheet {
    static let css = """
        :root { color-scheme: light; --ink: #1b1b1f; --muted: #4a4a55; --line: #c9c9d2; --accent: #0b57d0; --bg: #f6f6f9; }
        * { box-sizing: border-box; }
        body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); line-height: 1.45; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 1em; top: 1em; background: #fff; padding: .5em; z-index: 2; }
        header { background: #fff; border-bottom: 1px solid var(--line); padding: .5em 1em; display: flex; flex-wrap: wrap; align-items: center; gap: .5em 1.5em; }
        .brand { font-weight: 700; margin: 0; }
        nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25em .75em; }
        a { color: var(--accent); } a:focus-visible, button:focus-visible, summary:focus-visible { outline: 3px solid #f0a000; outline-offset: 2px; }
        nav a[aria-current] { font-weight: 700; color: var(--ink); text-decoration-thickness: 3px; }
        main { padding: 1em; max-width: 72em; margin: 0 auto; }
        h1 { font-size: 1.6em; margin: .2em 0 .6em; } h2 { font-size: 1.15em; margin: 0 0 .5em; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1em; margin: 0 0 1em; min-width: 0; }
        .grid { display: grid; grid-template-columns: 1fr; gap: 0 1em; }
        @media (min-width: 60em) { .grid { grid-template-columns: 1fr 1fr; } }
        figure { margin: 0; } figcaption { color: var(--muted); font-size: .9em; }
        svg.chart { width: 100%; height: auto; display: block; }
        .grid line, svg line.grid { stroke: #dcdce3; stroke-width: 1; }
        text.axis { font-size: 11px; fill: #4a4a55; }
        rect.bar { fill: #0b57d0; } rect.range { fill: #c2185b; } circle.dot { fill: #1b1b1f; }
        polyline.line { fill: none; stroke: #0b57d0; stroke-width: 2; }
        rect.s0 { fill: #7e57c2; } rect.s1 { fill: #1a237e; } rect.s2 { fill: #42a5f5; } rect.s3 { fill: #26a69a; } rect.s4 { fill: #9e9e9e; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: .95em; }
        th, td { text-align: left; padding: .3em .5em; border-bottom: 1px solid #e3e3ea; }
        .periods ul { gap: .5em; } .periods a { display: inline-block; padding: .3em .8em; border: 1px solid var(--line); border-radius: 999px; background: #fff; }
        .periods a[aria-current] { background: var(--accent); color: #fff; border-color: var(--accent); }
        .types { columns: 2 14em; padding-left: 1.2em; }
        .notice { background: #e8f0fe; border: 1px solid #0b57d0; padding: .5em 1em; border-radius: 6px; }
        button { font: inherit; padding: .25em .8em; border-radius: 6px; border: 1px solid #b3261e; background: #fff; color: #b3261e; cursor: pointer; }
        form { margin: 0; }
        button.danger { background: #b3261e; color: #fff; } button.restore { border-color: var(--accent); color: var(--accent); }
        form.actions { display: flex; flex-wrap: wrap; align-items: center; gap: .5em 1.5em; margin-top: 1em; }
        details > form.fields { margin-top: .75em; }
        ul.deleted { list-style: none; margin: 0; padding: 0; } .muted { color: var(--muted); font-size: .9em; }
        ul.deleted li { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: .5em 1em; padding: .6em 0; border-bottom: 1px solid #e3e3ea; }
        .problem { background: #fce8e6; border: 1px solid #b3261e; color: #5c0f0b; padding: .5em 1em; border-radius: 6px; }
        .verified { background: #e6f4ea; border: 1px solid #137333; color: #0d4f23; padding: .5em 1em; border-radius: 6px; }
        form.fields { display: grid; grid-template-columns: minmax(8em, max-content) minmax(0, 24em); gap: .4em 1em; align-items: center; }
        form.profile fieldset { grid-column: 1 / -1; display: grid; grid-template-columns: minmax(8em, max-content) minmax(0, 24em); gap: .4em 1em; align-items: center; margin: .4em 0 0; padding: .5em 0 .6em; border: 0; border-top: 1px solid #d0d0d8; }
        form.profile legend { font-weight: 600; padding: .3em 0; } form.profile textarea { font: inherit; padding: .2em .4em; border: 1px solid #6e6e78; border-radius: 4px; max-width: 100%; }
        ul.contacts { margin: 0; padding-left: 1.2em; }
        @media (max-width: 40em) { form.profile, form.profile fieldset, dl.fields.medical { grid-template-columns: minmax(0, 1fr); } form.profile label { margin-top: .3em; } dl.fields.medical dd { margin-bottom: .4em; } }
        form.inline { display: inline-block; margin: .25em .5em .25em 0; }
        td code { overflow-wrap: anywhere; word-break: break-all; }
        input, select { font: inherit; padding: .2em .4em; border: 1px solid #6e6e78; border-radius: 4px; background: #fff; color: var(--ink); max-width: 100%; }
        dl.fields { display: grid; grid-template-columns: minmax(8em, max-content) 1fr; gap: .3em 1em; margin: 0; }
        dl.fields dt { font-weight: 600; } dl.fields dd { margin: 0; overflow-wrap: anywhere; }
        pre.json { overflow-x: auto; font-size: .85em; background: #f6f6f9; padding: .75em; }
        details > summary { cursor: pointer; }
        .cardbody { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; } .cardbody dl { flex: 1 1 18em; }
        svg.qr { width: 100%; max-width: 240px; height: auto; }
        """

    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#c2185b" d="M8 14.5 1.9 8.6A3.6 3.6 0 0 1 8 3.6a3.6 3.6 0 0 1 6.1 5z"/></svg>
        """
}
