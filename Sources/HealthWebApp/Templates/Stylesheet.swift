/// The page's stylesheet and icon, served by the binary (no CDN, no web fonts). Colours meet
/// WCAG AA contrast on their backgrounds; the layout is one column on a phone and a grid on a desktop.
enum Stylesheet {
    static let css = """
        :root { color-scheme: light; --ink: #1b1b1f; --muted: #4a4a55; --line: #c9c9d2; --rule: #e3e3ea; --accent: #0b57d0; --bg: #f6f6f9;
          --surface: #ffffff; --on-accent: #ffffff; --danger: #b3261e; --on-danger: #ffffff; --notice: #e8f0fe; --problem: #fce8e6;
          --problem-ink: #5c0f0b; --ok: #e6f4ea; --ok-ink: #0d4f23; --field: #6e6e78; --focus: #f0a000; --range: #c2185b;
          --s0: #7e57c2; --s1: #1a237e; --s2: #42a5f5; --s3: #26a69a; --s4: #9e9e9e; --shade: rgba(0, 0, 0, .3); }
        @media (prefers-color-scheme: dark) {
          :root { color-scheme: dark; --ink: #e8e8ed; --muted: #b9b9c4; --line: #4a4a55; --rule: #34343c; --accent: #8ab4f8; --bg: #121215;
            --surface: #1e1e23; --on-accent: #0b1d3a; --danger: #f2b8b5; --on-danger: #410e0b; --notice: #1c2b45; --problem: #3c1412;
            --problem-ink: #f9dedc; --ok: #10301c; --ok-ink: #c4eed0; --field: #8e8e99; --focus: #ffb300; --range: #f48fb1;
            --s0: #b39ddb; --s1: #5c6bc0; --s2: #64b5f6; --s3: #4db6ac; --s4: #9e9e9e; --shade: rgba(255, 255, 255, .35); }
        }
        * { box-sizing: border-box; }
        body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg);
          line-height: 1.45; overflow-wrap: break-word; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 1em; top: 1em; background: var(--surface); padding: .5em; z-index: 2; }
        header { background: var(--surface); border-bottom: 1px solid var(--line); padding: .5em 1em; display: flex; flex-wrap: wrap;
          align-items: center; gap: .5em 1.5em; }
        .brand { font-weight: 700; margin: 0; }
        nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25em .75em; }
        a { color: var(--accent); } a:focus-visible, button:focus-visible, summary:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
        nav a[aria-current] { font-weight: 700; color: var(--ink); text-decoration-thickness: 3px; }
        main { padding: 1em; max-width: 72em; margin: 0 auto; }
        h1 { font-size: 1.6em; margin: .2em 0 .6em; } h2 { font-size: 1.15em; margin: 0 0 .5em; }
        .card { background: var(--surface); border: 1px solid var(--line); border-radius: 10px; padding: 1em; margin: 0 0 1em; min-width: 0; }
        .grid { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 1em; }
        @media (min-width: 60em) { .grid { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
        .tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 15em), 1fr)); gap: 1em; margin-bottom: 1em; }
        .tiles .card { margin: 0; display: flex; flex-direction: column; gap: .2em; }
        .tile-name { font-weight: 600; } .tile-value { font-size: 1.6em; font-weight: 700; color: var(--ink); line-height: 1.2; }
        .tile-more { margin: .3em 0 0; padding: 0; list-style: none; color: var(--muted); }
        a.tile { text-decoration: none; color: var(--ink); } a.tile:hover .tile-name, a.tile:focus-visible .tile-name { text-decoration: underline; }
        a.tile .tile-name { color: var(--accent); }
        .trend-up { color: var(--ok-ink); } .trend-down { color: var(--problem-ink); }
        .tile-when { font-size: .9em; font-weight: 600; color: var(--muted); }
        .tile-when.past { align-self: flex-start; background: var(--notice); color: var(--ink); border-radius: 4px; padding: 0 .4em; }
        figure { margin: 0; } figcaption { color: var(--muted); font-size: .9em; }
        svg.chart { width: 100%; max-width: 46em; height: auto; display: block; margin: 0 auto; }
        svg line.grid { stroke: var(--rule); stroke-width: 1; }
        text.axis { font-size: \(SVGChart.n(SVGChart.phoneTextSize))px; fill: var(--muted); }
        text.axis tspan.wide { display: none; }
        @media (min-width: 40em) { text.axis { font-size: \(SVGChart.n(SVGChart.textSize))px; } text.axis tspan.wide { display: inline; }
          text.axis tspan.narrow { display: none; } }
        rect.bar { fill: var(--accent); } rect.range { fill: var(--range); } circle.dot { fill: var(--ink); }
        polyline.line { fill: none; stroke: var(--accent); stroke-width: 2; } rect.band { fill: var(--ok); }
        rect.s0 { fill: var(--s0); } rect.s1 { fill: var(--s1); } rect.s2 { fill: var(--s2); } rect.s3 { fill: var(--s3); } rect.s4 { fill: var(--s4); }
        .scroll { overflow-x: auto; max-width: 100%; background: linear-gradient(to right, var(--surface) 30%, transparent) left / 2em 100% no-repeat local,
          linear-gradient(to left, var(--surface) 30%, transparent) right / 2em 100% no-repeat local,
          radial-gradient(farthest-side at 0 50%, var(--shade), transparent) left / .9em 100% no-repeat scroll,
          radial-gradient(farthest-side at 100% 50%, var(--shade), transparent) right / .9em 100% no-repeat scroll; }
        table { border-collapse: collapse; width: 100%; font-size: .95em; }
        th, td { text-align: left; padding: .3em .5em; border-bottom: 1px solid var(--rule); vertical-align: top; }
        .scroll td, .scroll th { white-space: nowrap; } .scroll td.wrap { white-space: normal; min-width: 12em; }
        @media (max-width: 40em) { .scroll th[scope="row"] { white-space: normal; min-width: 11em; }
          #trends-heading ~ .scroll th, #trends-heading ~ .scroll td,
          #latest-heading ~ .scroll th, #latest-heading ~ .scroll td { white-space: normal; min-width: 0;
          padding: .3em .35em; } }
        .periods ul { gap: .5em; } .periods a { display: inline-block; padding: .3em .8em; border: 1px solid var(--line); border-radius: 999px;
          background: var(--surface); }
        .periods a[aria-current] { background: var(--accent); color: var(--on-accent); border-color: var(--accent); }
        .steps { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: .5em 1em; margin: .5em 0 1em; }
        .steps .range { font-weight: 600; }
        .types { columns: 2 14em; padding-left: 1.2em; }
        .notice { background: var(--notice); border: 1px solid var(--accent); padding: .5em 1em; border-radius: 6px; }
        button { font: inherit; padding: .3em .9em; border-radius: 6px; border: 1px solid var(--accent); background: var(--surface);
          color: var(--accent); cursor: pointer; }
        button.primary, form.fields button, form.upload button { background: var(--accent); color: var(--on-accent); border-color: var(--accent); }
        form button.delete { background: var(--surface); color: var(--danger); border-color: var(--danger); }
        form button.danger { background: var(--danger); color: var(--on-danger); border-color: var(--danger); }
        form button.restore { background: var(--surface); color: var(--accent); border-color: var(--accent); }
        form { margin: 0; }
        form.actions { display: flex; flex-wrap: wrap; align-items: center; gap: .5em 1.5em; margin-top: 1em; }
        details > form.fields { margin-top: .75em; }
        ul.deleted { list-style: none; margin: 0; padding: 0; } .muted { color: var(--muted); font-size: .9em; }
        ul.deleted li { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: .5em 1em; padding: .6em 0;
          border-bottom: 1px solid var(--rule); }
        .flag { display: inline-block; background: var(--problem); color: var(--problem-ink); border: 1px solid var(--danger); border-radius: 4px;
          padding: 0 .4em; font-size: .9em; font-weight: 600; white-space: nowrap; }
        .problem { background: var(--problem); border: 1px solid var(--danger); color: var(--problem-ink); padding: .5em 1em; border-radius: 6px; }
        .verified { background: var(--ok); border: 1px solid var(--ok-ink); color: var(--ok-ink); padding: .5em 1em; border-radius: 6px; }
        form.fields { display: grid; grid-template-columns: minmax(8em, max-content) minmax(0, 24em); gap: .4em 1em; align-items: center; }
        @media (max-width: 40em) { form.fields { grid-template-columns: minmax(0, 1fr); } form.fields > span:empty { display: none; } }
        form.profile fieldset { grid-column: 1 / -1; display: grid; grid-template-columns: minmax(8em, max-content) minmax(0, 24em); gap: .4em 1em;
          align-items: center; margin: .4em 0 0; padding: .5em 0 .6em; border: 0; border-top: 1px solid var(--line); }
        form.profile legend { font-weight: 600; padding: .3em 0; } form.profile textarea { font: inherit; padding: .2em .4em;
          border: 1px solid var(--field); border-radius: 4px; max-width: 100%; background: var(--surface); color: var(--ink); }
        ul.contacts { margin: 0; padding-left: 1.2em; }
        @media (max-width: 40em) { form.profile, form.profile fieldset, dl.fields.medical { grid-template-columns: minmax(0, 1fr); }
          form.profile label { margin-top: .3em; } dl.fields.medical dd { margin-bottom: .4em; } }
        form.inline { display: inline-block; margin: .25em .5em .25em 0; }
        td code { overflow-wrap: anywhere; word-break: break-all; }
        input, select { font: inherit; padding: .2em .4em; border: 1px solid var(--field); border-radius: 4px; background: var(--surface);
          color: var(--ink); max-width: 100%; min-width: 0; }
        dl.fields { display: grid; grid-template-columns: minmax(8em, max-content) minmax(0, 1fr); gap: .3em 1em; margin: 0; }
        @media (max-width: 40em) { dl.fields { grid-template-columns: minmax(0, 1fr); } dl.fields dd { margin-bottom: .4em; } }
        dl.fields dt { font-weight: 600; } dl.fields dd { margin: 0; overflow-wrap: anywhere; }
        pre.json { overflow-x: auto; font-size: .85em; background: var(--bg); padding: .75em; }
        details > summary { cursor: pointer; }
        .cardbody { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; } .cardbody dl { flex: 1 1 18em; min-width: 0; }
        svg.qr { width: 100%; max-width: 240px; height: auto; background: #ffffff; }
        form.search { display: flex; flex-wrap: wrap; align-items: center; gap: .4em .6em; margin: 0 0 1em; } form.search input { flex: 1 1 12em; }
        form.search button { background: var(--accent); color: var(--on-accent); }
        ul.latest { list-style: none; margin: 0 0 .5em; padding: 0; } ul.latest li { padding: .35em 0; border-bottom: 1px solid var(--rule); }
        .latest-value { font-weight: 600; } a.add { margin-left: .5em; white-space: nowrap; }
        form.fields .amount { display: flex; gap: .4em; min-width: 0; } form.fields .amount input { flex: 1 1 6em; }
        """

    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#c2185b" d="M8 14.5 1.9 8.6A3.6 3.6 0 0 1 8 3.6a3.6 3.6 0 0 1 6.1 5z"/></svg>
        """
}
