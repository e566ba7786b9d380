import Foundation
import Hummingbird
import OpenHealthKit

extension HealthWebApp {
    /// `GET /profile` and `POST /profile`: the owner's profile and Medical ID. A form with a value
    /// that is not one of the choices, a date that is not a calendar day or a contact without a
    /// phone number is refused whole (nothing is stored).
    func addProfileRoutes(to router: Router<BasicRequestContext>) {
        router.get("/profile") { request, _ in
            let notice = request.uri.queryParameters["saved"].map { _ in "Profile saved." }
            return try await pages.page(title: "Profile", section: .profile,
                                        content: ProfileView(pages: pages, store: store).render(csrf: csrf(request)), notice: notice)
        }
        router.post("/profile") { request, _ in
            let form = try await formFields(request)
            var profile = try await store.ownerProfile()
            try Self.apply(form, to: &profile)
            try await store.saveOwnerProfile(profile)
            return Self.redirect("/profile?saved=1")
        }
    }

    /// Reads the profile form into `profile`; a field that is absent leaves its part unchanged.
    /// - Throws: a 400 `HTTPError` naming what is wrong.
    static func apply(_ form: FormFields, to profile: inout HKOwnerProfile) throws {
        func refuse(_ message: String) -> HTTPError { HTTPError(.badRequest, message: "\(message); nothing was changed.") }
        func text(_ name: String) -> String? { form[name].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } }
        func lines(_ name: String) -> [String]? {
            form[name].map { $0.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        if let given = text("givenName") { profile.givenName = given }
        if let family = text("familyName") { profile.familyName = family }
        if let birth = text("birthDate") {
            if birth.isEmpty {
                profile.dateOfBirth = nil
            } else {
                let parts = birth.split(separator: "-", omittingEmptySubsequences: false)
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
                guard parts.count == 3, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
                      (1800...3000).contains(year), (1...12).contains(month), (1...31).contains(day),
                      let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
                      calendar.component(.day, from: date) == day else {
                    throw refuse("The date of birth must be a calendar day (year-month-day)")
                }
                profile.dateOfBirth = DateComponents(calendar: Calendar(identifier: .gregorian), year: year, month: month, day: day)
            }
        }
        if let sex = form["sex"] {
            guard let choice = ProfileView.sexes.first(where: { $0.1 == sex }) else { throw refuse("The form chose a sex that is not one of the choices") }
            profile.biologicalSex = choice.0
        }
        if let blood = form["bloodType"] {
            guard let value = Int(blood).flatMap(HKBloodType.init(rawValue:)) else {
                throw refuse("The form chose a blood type that is not one of the choices")
            }
            profile.bloodType = value
        }
        if let donor = form["organDonor"] {
            guard let choice = ProfileView.organDonor.first(where: { $0.1 == donor }) else {
                throw refuse("The form chose an organ donor answer that is not one of the choices")
            }
            profile.medicalID.organDonor = choice.0
        }
        if let conditions = lines("conditions") { profile.medicalID.conditions = conditions }
        if let allergies = lines("allergies") { profile.medicalID.allergies = allergies }
        if let medications = lines("medications") { profile.medicalID.medications = medications }
        if let notes = form["notes"] { profile.medicalID.notes = notes.trimmingCharacters(in: .whitespacesAndNewlines) }
        if form["contactName0"] != nil {
            var contacts: [HKOwnerProfile.EmergencyContact] = []
            for index in 0..<ProfileView.maximumContacts {
                guard let name = text("contactName\(index)") else { break }
                let phone = text("contactPhone\(index)") ?? ""
                guard !name.isEmpty else { continue }
                guard !phone.isEmpty else { throw refuse("The emergency contact \(name) needs a phone number") }
                contacts.append(.init(name: name, relationship: text("contactRelationship\(index)") ?? "", phone: phone))
            }
            // The page shows at most maximumContacts of them (the CLI adds without a limit): those
            // past it were not on the form, and stay.
            profile.medicalID.emergencyContacts = contacts + profile.medicalID.emergencyContacts.dropFirst(ProfileView.maximumContacts)
        }
    }
}
