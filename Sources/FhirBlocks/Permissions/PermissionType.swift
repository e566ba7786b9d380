/// The HEART/SMART context of a permission or scope: `patient` (one patient's compartment),
/// `user` (what the user may see) or `system` (backend services).
public enum PermissionType: String, Sendable, Hashable, CaseIterable {
    case patient
    case user
    case system
}
