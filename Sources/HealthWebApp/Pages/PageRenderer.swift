import Hummingbird
import Mustache

/// Renders the pages: the swift-mustache templates of ``PageTemplates``, compiled once, and the
/// layout around every page (the navigation, the title, a notice).
struct PageRenderer: Sendable {
    /// The sections of the navigation.
    enum Section: String, CaseIterable, Sendable {
        case today, summary, browse, records, cards, sharing, share, profile, settings

        var label: String {
            switch self {
            case .today: "Today"
            case .summary: "Summary"
            case .browse: "Browse"
            case .records: "Health records"
            case .cards: "Health cards"
            case .sharing: "Sharing"
            case .share: "Share"
            case .profile: "Profile"
            case .settings: "Settings"
            }
        }

        var href: String {
            switch self {
            case .today: "/"
            case .summary: "/summary"
            case .browse: "/browse"
            case .records: "/records"
            case .cards: "/cards"
            case .sharing: "/sharing"
            case .share: "/share"
            case .profile: "/profile"
            case .settings: "/settings"
            }
        }
    }

    private let library: MustacheLibrary

    init() throws {
        var library = MustacheLibrary()
        for (name, text) in PageTemplates.all.merging(UploadTemplates.all, uniquingKeysWith: { first, _ in first }) { try library.register(text, named: name) }
        self.library = library
    }

    /// Renders one template.
    func render(_ template: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: template) ?? ""
    }

    /// A whole page: `content` (rendered HTML) in the layout; `notice` and `problem` are shown above
    /// it; `refresh` reloads it after that many seconds (a progress page, with no script); `status`
    /// is the answer's status.
    func page(title: String, section: Section, content: String, notice: String? = nil, problem: String? = nil,
              refresh: Int? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let nav: [[String: Any]] = Section.allCases.map { ["href": $0.href, "label": $0.label, "current": $0 == section] }
        var context: [String: Any] = ["title": title, "nav": nav, "content": content]
        if let notice { context["notice"] = notice }
        if let problem { context["problem"] = problem }
        if let refresh { context["refresh"] = refresh }
        return Self.html(render("layout", context), status: status)
    }

    /// A refusal or error page (no navigation: it is also what a browser without a session sees).
    func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Self.html(render("problem", ["title": status.reasonPhrase, "message": message]), status: status)
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
