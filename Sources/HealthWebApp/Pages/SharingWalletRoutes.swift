import FhirBlocks
import Foundation
import Hummingbird

extension HealthWebApp {
    /// `POST /sharing/wallet/grant` and `POST /sharing/wallet/revoke`: signed requests through
    /// the wallet SDK. A bad form or a refusal by the server changes nothing and comes back to
    /// the Sharing page with the reason in plain words.
    func addWalletRoutes(to router: Router<BasicRequestContext>) {
        router.post("/sharing/wallet/grant") { request, _ in
            let form = try await formFields(request)
            let wallet = try connectedWallet()
            do throws(SharingWalletProblem) {
                let grant = try SharingGrantForm(form)
                let ids = try await wallet.grant(to: grant.grantee, scope: grant.scope, window: grant.window)
                return Self.redirect("/sharing?walletChanged=" + Self.queryValue("Granted \(grant.scope) to \(grant.grantee) (\(ids.count) permission(s))."))
            } catch {
                return Self.redirect("/sharing?walletProblem=" + Self.queryValue(error.description))
            }
        }
        router.post("/sharing/wallet/revoke") { request, _ in
            let form = try await formFields(request)
            let wallet = try connectedWallet()
            guard let grantee = form["grantee"].flatMap(CsiGuid.init) else {
                return Self.redirect("/sharing?walletProblem=" + Self.queryValue("The form did not name a grantee; nothing was revoked."))
            }
            do throws(SharingWalletProblem) {
                let ids = try await wallet.revoke(grantee: grantee)
                return Self.redirect("/sharing?walletChanged=" + Self.queryValue("Revoked \(ids.count) permission(s) of \(grantee)."))
            } catch {
                return Self.redirect("/sharing?walletProblem=" + Self.queryValue(error.description))
            }
        }
    }

    /// The wallet's section of the Sharing page, with the page of the audit log before
    /// `auditCursor` (the newest when nil); never throws: a server that cannot be read is said so on the page.
    func walletSection(csrf: String, auditCursor: Int? = nil) async -> String {
        let view = SharingWalletView(pages: pages)
        guard let wallet else { return view.notConnected() }
        let csi = wallet.identity.csiGuid.description
        do {
            let snapshot = try await wallet.snapshot(auditCursor: auditCursor)
            let now = clock()
            let text = SampleText(units: [:], calendar: calendar)
            let nextYear = calendar.date(byAdding: .year, value: 1, to: now) ?? now
            return view.render(csi: csi, snapshot, csrf: csrf, today: String(text.date(now).prefix(10)), nextYear: String(text.date(nextYear).prefix(10)))
        } catch {
            return view.unavailable(csi: csi, problem: error)
        }
    }

    private func connectedWallet() throws -> SharingWallet {
        guard let wallet else {
            throw HTTPError(.notFound, message: "No wallet is connected: start health ui with --identity FILE --server URL; nothing was changed.")
        }
        return wallet
    }
}
