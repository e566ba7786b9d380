import CommonSupport
import Foundation
import OpenHealthKit

/// The Profile page: the person the store belongs to and their Medical ID, shown as a first
/// responder would read it, and one CSRF-protected form that edits all of it without a script
/// (the lists one entry per line; one empty row to add an emergency contact).
struct ProfileView {
    let pages: PageRenderer
    let store: HKHealthStore

    /// The sex choices: form value and label.
    static let sexes: [(HKBiologicalSex, String, String)] = [
        (.notSet, "unset", "Not set"), (.female, "female", "Female"), (.male, "male", "Male"), (.other, "other", "Other"),
    ]
    /// The blood type choices: form value and label.
    static let bloodTypes: [(HKBloodType, String)] = [
        (.notSet, "Not set"), (.aPositive, "A+"), (.aNegative, "A−"), (.bPositive, "B+"), (.bNegative, "B−"),
        (.abPositive, "AB+"), (.abNegative, "AB−"), (.oPositive, "O+"), (.oNegative, "O−"),
    ]
    /// The organ donor choices: form value and label.
    static let organDonor: [(Bool?, String, String)] = [(nil, "unset", "Not set"), (true, "yes", "Yes"), (false, "no", "No")]

    /// The most emergency contacts the form edits (the stored ones and one empty row).
    static let maximumContacts = 20

    func render(csrf: String) async throws -> String {
        let profile = try await store.ownerProfile()
        let id = profile.medicalID
        let birth = Self.dateText(profile.dateOfBirth)
        var fields: [[String: String]] = [
            ["label": "Name", "text": profile.fullName.isEmpty ? "Not set" : profile.fullName],
            ["label": "Date of birth", "text": birth.flatMap(Self.longDate) ?? "Not set"],
            ["label": "Sex", "text": Self.sexes.first { $0.0 == profile.biologicalSex }?.2 ?? "Not set"],
            ["label": "Blood type", "text": Self.bloodTypes.first { $0.0 == profile.bloodType }?.1 ?? "Not set"],
            ["label": "Organ donor", "text": Self.organDonor.first { $0.0 == id.organDonor }?.2 ?? "Not set"],
        ]
        for (label, list) in [("Medical conditions", id.conditions), ("Allergies and reactions", id.allergies), ("Medications", id.medications)] {
            fields.append(["label": label, "text": list.isEmpty ? "None" : list.joined(separator: "; ")])
        }
        if !id.notes.isEmpty { fields.append(["label": "Medical notes", "text": id.notes]) }
        let contacts: [[String: String]] = id.emergencyContacts.map {
            ["name": $0.name, "relationship": $0.relationship, "phone": $0.phone]
        }
        let rows: [[String: Any]] = (id.emergencyContacts.map(Optional.some) + [nil]).prefix(Self.maximumContacts).enumerated().map { index, contact in
            ["index": index, "number": index + 1, "name": contact?.name ?? "", "relationship": contact?.relationship ?? "",
             "phone": contact?.phone ?? "", "isNew": contact == nil]
        }
        let records = try await ProfileRecords.render(store: store, profile: profile)
        return pages.render("profile", [
            "csrf": csrf, "isEmpty": profile.isEmpty, "fields": fields, "contacts": contacts, "hasContacts": !contacts.isEmpty,
            "givenName": profile.givenName, "familyName": profile.familyName, "birthDate": birth ?? "",
            "sexes": Self.sexes.map { ["value": $0.1, "label": $0.2, "selected": $0.0 == profile.biologicalSex] },
            "bloodTypes": Self.bloodTypes.map { ["value": String($0.0.rawValue), "label": $0.1, "selected": $0.0 == profile.bloodType] },
            "organDonor": Self.organDonor.map { ["value": $0.1, "label": $0.2, "selected": $0.0 == id.organDonor] },
            "conditions": id.conditions.joined(separator: "\n"), "allergies": id.allergies.joined(separator: "\n"),
            "medications": id.medications.joined(separator: "\n"), "notes": id.notes, "rows": rows,
        ]) + records
    }

    /// `YYYY-MM-DD` of a date of birth.
    static func dateText(_ components: DateComponents?) -> String? {
        guard let components, let year = components.year, let month = components.month, let day = components.day else { return nil }
        return ISODateText.string(year: year, month: month, day: day)
    }

    /// `2 April 1980` for `1980-04-02`.
    private static func longDate(_ text: String) -> String? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return nil }
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        return "\(parts[2]) \(months[parts[1] - 1]) \(parts[0])"
    }

    static let template = """
        <section class="card" aria-labelledby="medical-id-heading">
        <h2 id="medical-id-heading">Medical ID</h2>
        {{#isEmpty}}<p>This store does not say whose it is yet. Fill in the form below: imports of health records and cards then check that they are \
        yours.</p>{{/isEmpty}}
        <dl class="fields medical">{{#fields}}<dt>{{label}}</dt><dd>{{text}}</dd>{{/fields}}
        <dt>Emergency contacts</dt><dd>{{#hasContacts}}<ul class="contacts">{{#contacts}}<li>{{name}}{{#relationship}} \
        ({{relationship}}){{/relationship}}: <a href="tel:{{phone}}">{{phone}}</a></li>{{/contacts}}</ul>{{/hasContacts}}\
        {{^hasContacts}}None{{/hasContacts}}</dd>
        </dl>
        </section>
        <section class="card" aria-labelledby="edit-heading">
        <h2 id="edit-heading">Edit</h2>
        <p>Your date of birth, sex and blood type are also what apps you allow can read. Records and health cards of another person are refused when you \
        import them, unless you choose to import them anyway.</p>
        <form method="post" action="/profile" class="fields profile">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="profile-given">Given name</label><input id="profile-given" name="givenName" value="{{givenName}}" autocomplete="given-name">
        <label for="profile-family">Family name</label><input id="profile-family" name="familyName" value="{{familyName}}" autocomplete="family-name">
        <label for="profile-birth">Date of birth</label><input id="profile-birth" name="birthDate" type="date" value="{{birthDate}}" autocomplete="bday">
        <label for="profile-sex">Sex</label><select id="profile-sex" name="sex">{{#sexes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>\
        {{label}}</option>{{/sexes}}</select>
        <label for="profile-blood">Blood type</label><select id="profile-blood" name="bloodType">{{#bloodTypes}}<option value="{{value}}"{{#selected}} \
        selected{{/selected}}>{{label}}</option>{{/bloodTypes}}</select>
        <label for="profile-donor">Organ donor</label><select id="profile-donor" name="organDonor">{{#organDonor}}<option value="{{value}}"{{#selected}} \
        selected{{/selected}}>{{label}}</option>{{/organDonor}}</select>
        <label for="profile-conditions">Medical conditions <small>(one per line)</small></label><textarea id="profile-conditions" name="conditions" \
        rows="3">{{conditions}}</textarea>
        <label for="profile-allergies">Allergies and reactions <small>(one per line)</small></label><textarea id="profile-allergies" name="allergies" \
        rows="3">{{allergies}}</textarea>
        <label for="profile-medications">Medications <small>(one per line)</small></label><textarea id="profile-medications" name="medications" rows="3">\
        {{medications}}</textarea>
        <label for="profile-notes">Medical notes</label><textarea id="profile-notes" name="notes" rows="3">{{notes}}</textarea>
        {{#rows}}<fieldset class="contact"><legend>{{#isNew}}Add an emergency contact{{/isNew}}{{^isNew}}Emergency contact {{number}} <small>(clear the \
        name to remove)</small>{{/isNew}}</legend>
        <label for="contact-name-{{index}}">Name</label><input id="contact-name-{{index}}" name="contactName{{index}}" value="{{name}}">
        <label for="contact-relationship-{{index}}">Relationship</label><input id="contact-relationship-{{index}}" name="contactRelationship{{index}}" \
        value="{{relationship}}">
        <label for="contact-phone-{{index}}">Phone</label><input id="contact-phone-{{index}}" name="contactPhone{{index}}" type="tel" value="{{phone}}" \
        autocomplete="off">
        </fieldset>{{/rows}}
        <span></span><button type="submit">Save profile</button>
        </form>
        </section>
        """
}
