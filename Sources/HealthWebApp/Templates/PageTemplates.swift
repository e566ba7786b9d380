/// The page templates (swift-mustache), compiled once when the application starts. `{{x}}` is
/// HTML-escaped; `{{{x}}}` is used only for HTML that Swift code wrote (charts, page bodies).
enum PageTemplates {
    static let all: [String: String] = [
        "layout": layout, "problem": problem, "today": TodayView.template, "tile": TodayView.tile, "summary": summary, "chart": chart, "browse": browse,
        "type": TypePage.template,
        "records": records, "record": record, "sharing": sharing,
        "wallet": SharingWalletView.template, "settings": SettingsView.template,
        "profile": ProfileView.template,
        "deleteConfirm": RecentlyDeletedView.confirmTemplate, "recentlyDeleted": RecentlyDeletedView.listTemplate,
    ]

    static let layout = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Health</title>
        {{#refresh}}<meta http-equiv="refresh" content="{{refresh}}">{{/refresh}}
        <link rel="stylesheet" href="/assets/app.css">
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
        <p class="brand">Health</p>
        <nav aria-label="Sections"><ul>
        {{#nav}}<li><a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a></li>{{/nav}}
        </ul></nav>
        </header>
        <main id="main">
        <h1>{{title}}</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#problem}}<p class="problem" role="alert">{{problem}}</p>{{/problem}}
        {{{content}}}
        </main>
        </body>
        </html>
        """

    static let problem = """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Health</title></head>
        <body><main><h1>{{title}}</h1><p role="alert">{{message}}</p></main></body>
        </html>
        """

    static let chart = """
        <section class="card" aria-labelledby="{{id}}-heading">
        <h2 id="{{id}}-heading">{{title}}</h2>
        {{#hasData}}
        <figure>{{{svg}}}<figcaption>{{caption}}</figcaption></figure>
        <details><summary>{{title}}: the numbers</summary>
        <div class="scroll"><table>
        <thead><tr>{{#columns}}<th scope="col">{{.}}</th>{{/columns}}</tr></thead>
        <tbody>{{#rows}}<tr>{{#cells}}<td>{{.}}</td>{{/cells}}</tr>{{/rows}}</tbody>
        </table></div>
        </details>
        {{/hasData}}
        {{^hasData}}<p>No data in this period.</p>{{/hasData}}
        </section>
        """

    static let summary = """
        <nav aria-label="Period" class="periods"><ul>
        {{#periods}}<li><a href="/summary?period={{id}}"{{#current}} aria-current="true"{{/current}}>{{label}}</a></li>{{/periods}}
        </ul></nav>
        <nav aria-label="Through time" class="steps"><a href="{{previous}}">← Previous {{periodName}}</a>
        <span class="range">{{range}}</span>
        {{#next}}<a href="{{next}}">Next {{periodName}} →</a>{{/next}}{{^next}}<span></span>{{/next}}</nav>
        <div class="grid">{{{charts}}}</div>
        <section class="card" aria-labelledby="latest-heading">
        <h2 id="latest-heading">Latest values</h2>
        {{#hasLatest}}
        <div class="scroll"><table>
        <thead><tr><th scope="col">Type</th><th scope="col">Value</th><th scope="col">When</th></tr></thead>
        <tbody>{{#latest}}<tr><th scope="row"><a href="{{href}}">{{name}}</a></th><td>{{value}}</td><td>{{date}}</td></tr>{{/latest}}</tbody>
        </table></div>
        {{/hasLatest}}
        {{^hasLatest}}<p>The store has no samples yet.</p>{{/hasLatest}}
        </section>
        """

    static let browse = """
        {{#groups}}
        <section class="card" aria-labelledby="group-{{id}}">
        <h2 id="group-{{id}}">{{name}}</h2>
        <ul class="types">{{#types}}<li><a href="{{href}}">{{name}}</a></li>{{/types}}</ul>
        </section>
        {{/groups}}
        {{^groups}}<p>The store has no samples yet.</p>{{/groups}}
        <p><a href="/recently-deleted">Recently deleted</a>: samples deleted in the last 30 days, which you can restore.</p>
        """

    static let records = """
        {{#categories}}
        <section class="card" aria-labelledby="cat-{{id}}">
        <h2 id="cat-{{id}}">{{name}} ({{count}})</h2>
        <div class="scroll"><table>
        <thead><tr><th scope="col">Record</th><th scope="col">Date</th><th scope="col">Source</th></tr></thead>
        <tbody>{{#records}}<tr><th scope="row"><a href="{{href}}">{{name}}</a>{{#other}}<br><span class="flag">Another person's record</span> \
        <span class="muted">{{other}}</span>{{/other}}</th><td>{{date}}</td><td>{{source}}</td></tr>{{/records}}</tbody>
        </table></div>
        </section>
        {{/categories}}
        {{^hasRecords}}<p>The store has no health records yet. <code>health records import FILE</code> adds FHIR files.</p>{{/hasRecords}}
        """

    static let record = """
        <p><a href="/records">All health records</a></p>
        <section class="card" aria-labelledby="record-heading">
        <h2 id="record-heading">Details</h2>
        <dl class="fields">{{#fields}}<dt>{{label}}</dt><dd>{{text}}</dd>{{/fields}}</dl>
        </section>
        {{#hasJSON}}
        <details class="card"><summary>FHIR JSON</summary><pre class="json">{{json}}</pre></details>
        {{/hasJSON}}
        """

    static let sharing = """
        <section class="card" aria-labelledby="apps-heading">
        <h2 id="apps-heading">Apps</h2>
        {{#apps}}
        <h3>{{bundle}}</h3>
        {{#anyAllowed}}
        <form method="post" action="/sharing/revoke"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="bundle" value="{{bundle}}">
        <button type="submit">Revoke all access of {{bundle}}</button></form>
        {{/anyAllowed}}
        <div class="scroll"><table>
        <thead><tr><th scope="col">Type</th><th scope="col">Read</th><th scope="col">Write</th><th scope="col">Change</th></tr></thead>
        <tbody>{{#types}}<tr><th scope="row">{{name}}</th><td>{{read}}</td><td>{{share}}</td><td>
        {{#canTurnOff}}<form method="post" action="/sharing/turn-off"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="bundle" value="{{bundle}}"><input type="hidden" name="type" value="{{type}}">
        <button type="submit" aria-label="Turn off {{name}} for {{bundle}}">Turn off</button></form>{{/canTurnOff}}
        </td></tr>{{/types}}</tbody>
        </table></div>
        {{/apps}}
        {{^hasApps}}<p>No app has asked for access.</p>{{/hasApps}}
        </section>
        <section class="card" aria-labelledby="shares-heading">
        <h2 id="shares-heading">One-time shares of verifiable records</h2>
        {{#hasShares}}
        <div class="scroll"><table>
        <thead><tr><th scope="col">When</th><th scope="col">App</th><th scope="col">Outcome</th></tr></thead>
        <tbody>{{#shares}}<tr><td>{{date}}</td><td>{{app}} ({{bundle}})</td><td>{{outcome}}</td></tr>{{/shares}}</tbody>
        </table></div>
        {{/hasShares}}
        {{^hasShares}}<p>No app has asked for your verifiable records.</p>{{/hasShares}}
        </section>
        """
}
