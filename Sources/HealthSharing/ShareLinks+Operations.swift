import FhirBlocksClient
import Foundation

extension ShareLinks {
    func createLink(_ options: ShareOptions) async throws(ShareError) -> CreatedShareLink {
        throw .server("creating links is not available yet")
    }

    func updateLink(id: String) async throws(ShareError) -> SharedLinkRecord {
        throw .server("updating links is not available yet")
    }

    func revokeLink(id: String) async throws(ShareError) {
        do {
            try await wallet.revokeLink(id: id)
        } catch {
            throw ShareError(error)
        }
    }
}
