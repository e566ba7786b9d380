/// Makes a benchmark fixture the first time it is asked for and hands the same one out after
/// (every benchmark of a run shares it).
actor FixtureOnce<Fixture: Sendable> {
    private let make: @Sendable () async throws -> Fixture
    private var fixture: Fixture?

    init(_ make: @escaping @Sendable () async throws -> Fixture) {
        self.make = make
    }

    func get() async throws -> Fixture {
        if let fixture { return fixture }
        let made = try await make()
        fixture = made
        return made
    }
}
