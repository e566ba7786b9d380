/// The templates of the Health cards page, the upload forms, import reports and progress pages
/// (swift-mustache, registered with ``PageTemplates``). `{{x}}` is HTML-escaped; `{{{x}}}` only
/// carries HTML that Swift code wrote.
enum UploadTemplates {
    static let all: [String: String] = [
        "cards": cards, "recordsImportForm": recordsImportForm, "importReport": importReport, "job": job,
    ]

    static let cards = """
        <section class="card" aria-labelledby="add-heading">
        <h2 id="add-heading">Add a card</h2>
        <p>A card is verified (signature, expiry, revocation, issuer) before it is stored; a card that does not verify is refused and nothing is stored.</p>
        <form method="post" action="/cards/add" enctype="multipart/form-data" class="upload">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p><label for="card-file">A SMART Health Card file (.smart-health-card or JWS text)</label><br>
        <input id="card-file" type="file" name="card" multiple accept=".smart-health-card,.jws,.txt,.json"></p>
        <p><label for="card-image">A picture of its QR code (PNG or JPEG)</label><br>
        <input id="card-image" type="file" name="image" multiple accept="image/png,image/jpeg"></p>
        <p><label for="card-text">Or paste its shc:/ text (a chunked card: every chunk, one per line)</label><br>
        <textarea id="card-text" name="shc" rows="3" cols="40" spellcheck="false"></textarea></p>
        <p><input id="card-other-person" type="checkbox" name="allowOtherPerson" value="yes">
        <label for="card-other-person">Add it even if the card is another person's (not the person of your <a href="/profile">profile</a>)</label></p>
        <p><button type="submit">Verify and add</button></p>
        </form>
        </section>
        <section class="card" aria-labelledby="check-heading">
        <h2 id="check-heading">Checked {{checkedAt}}</h2>
        <p>{{trustText}}</p>
        {{#hasCards}}<form method="post" action="/cards/recheck"><input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">Re-check all cards</button></form>{{/hasCards}}
        </section>
        {{#cards}}
        <section class="card" aria-labelledby="card-{{uuid}}">
        <h2 id="card-{{uuid}}">{{title}}</h2>
        <p class="verdict" data-verifies="{{verifies}}"><strong>{{verdict}}</strong></p>
        {{#hasReasons}}<ul class="reasons">{{#reasons}}<li>{{text}} \
        <details><summary>Details</summary><code>{{detail}}</code></details></li>{{/reasons}}</ul>{{/hasReasons}}
        <div class="cardbody">
        <dl class="fields">{{#fields}}<dt>{{label}}</dt><dd>{{text}}</dd>{{/fields}}</dl>
        {{#hasQR}}<figure>{{{qr}}}<figcaption>Show this QR code to be checked.</figcaption></figure>{{/hasQR}}
        </div>
        </section>
        {{/cards}}
        {{^hasCards}}<p>The store has no health cards yet.</p>{{/hasCards}}
        {{#hasPager}}<nav class="pager" aria-label="More health cards">{{#hasNewer}}<a href="{{newer}}">Newer cards</a> {{/hasNewer}}\
        {{#hasOlder}}<a href="{{older}}">Older cards</a>{{/hasOlder}}</nav>{{/hasPager}}
        """

    static let recordsImportForm = """
        <section class="card" aria-labelledby="import-heading">
        <h2 id="import-heading">Import FHIR files</h2>
        <form method="post" action="/records/import" enctype="multipart/form-data" class="upload">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p><label for="fhir-files">FHIR JSON files: a resource, a Bundle or NDJSON; several at once</label><br>
        <input id="fhir-files" type="file" name="files" multiple accept=".json,.ndjson"></p>
        <p><label for="fhir-version">FHIR version</label>
        <select id="fhir-version" name="fhirVersion"><option value="4.0.1" selected>R4 (4.0.1)</option><option value="1.0.2">DSTU2 (1.0.2)</option></select></p>
        <p><input id="fhir-other-person" type="checkbox" name="allowOtherPerson" value="yes">
        <label for="fhir-other-person">Import them even if they are another person's records (not the person of your <a href="/profile">profile</a>)</label></p>
        <p><button type="submit">Import</button></p>
        </form>
        </section>
        """

    static let importReport = """
        <section class="card" aria-labelledby="report-heading">
        <h2 id="report-heading">{{heading}}</h2>
        <p>{{storedText}}</p>
        {{#hasStored}}<ul class="stored">{{#stored}}<li>{{name}}: {{count}}</li>{{/stored}}</ul>{{/hasStored}}
        {{#hasSkipped}}<p>Skipped (not clinical records): {{skipped}}.</p>{{/hasSkipped}}
        </section>
        {{#hasProblems}}
        <section class="card" role="alert" aria-labelledby="problems-heading">
        <h2 id="problems-heading">Refused</h2>
        {{#unreadable}}<h3>{{input}}</h3><p>{{reason}}</p>{{/unreadable}}
        {{#refusals}}<h3>{{input}} ({{location}})</h3>
        <ul class="reasons">{{#reasons}}<li>{{text}} <details><summary>Details</summary><code>{{detail}}</code></details></li>{{/reasons}}</ul>{{/refusals}}
        {{#otherPerson}}<p>This store keeps the records of the person of its <a href="/profile">profile</a>. \
        To keep another person's records in it anyway, choose the files again and tick “even if they are another person's”.</p>{{/otherPerson}}
        </section>
        {{/hasProblems}}
        <p><a href="{{back}}">{{backText}}</a></p>
        """

    static let job = """
        <section class="card" aria-labelledby="job-heading">
        <h2 id="job-heading">{{title}}</h2>
        <p><label for="job-progress">{{done}} of {{total}} done</label><br>
        <progress id="job-progress" max="{{total}}" value="{{done}}">{{percent}} %</progress></p>
        <p>This page refreshes itself until the work is done. <a href="/jobs/{{id}}">Refresh now</a></p>
        </section>
        """
}
