/// Finds where value types would contain themselves (`Identifier.assigner: Reference` and
/// `Reference.identifier: Identifier`, `Extension.value[x]` holding types with extensions…) and
/// marks exactly those properties and choice enums as indirect. Arrays already store their
/// elements out of line, so only single-valued edges count.
enum RecursionAnalysis {
    static func markIndirections(in types: [TypeDecl]) {
        let all = types.flatMap(\.allTypes)
        var edges: [String: [String]] = [:]
        for type in all {
            var targets: [String] = []
            for property in type.properties where !property.isArray {
                switch property.type {
                case .element(let swift, _): targets.append(swift)
                case .choice(let choice):
                    let node = type.qualifiedName + "." + choice.enumName
                    targets.append(node)
                    edges[node] = choice.variants.compactMap {
                        if case .element(let swift, _) = $0.type { return swift }
                        return nil
                    }
                case .primitive, .resource: break
                }
            }
            edges[type.qualifiedName] = targets
        }
        let component = stronglyConnectedComponents(edges)
        for type in all {
            for index in type.properties.indices where !type.properties[index].isArray {
                let from = component[type.qualifiedName]
                switch type.properties[index].type {
                case .element(let swift, _):
                    if from != nil, component[swift] == from { type.properties[index].indirect = true }
                case .choice(let choice):
                    let node = type.qualifiedName + "." + choice.enumName
                    if from != nil, component[node] == from { choice.indirect = true }
                default: break
                }
            }
        }
    }

    /// Tarjan's algorithm; returns a component number for every node on a cycle.
    private static func stronglyConnectedComponents(_ edges: [String: [String]]) -> [String: Int] {
        var index = 0
        var indices: [String: Int] = [:]
        var lowLinks: [String: Int] = [:]
        var stack: [String] = []
        var onStack: Set<String> = []
        var result: [String: Int] = [:]
        var componentNumber = 0

        func visit(_ node: String) {
            indices[node] = index
            lowLinks[node] = index
            index += 1
            stack.append(node)
            onStack.insert(node)
            for next in edges[node] ?? [] {
                if indices[next] == nil {
                    visit(next)
                    lowLinks[node] = min(lowLinks[node] ?? 0, lowLinks[next] ?? 0)
                } else if onStack.contains(next) {
                    lowLinks[node] = min(lowLinks[node] ?? 0, indices[next] ?? 0)
                }
            }
            if lowLinks[node] == indices[node] {
                var members: [String] = []
                while let top = stack.popLast() {
                    onStack.remove(top)
                    members.append(top)
                    if top == node { break }
                }
                let selfLoop = (edges[node] ?? []).contains(node)
                if members.count > 1 || selfLoop {
                    for member in members { result[member] = componentNumber }
                    componentNumber += 1
                }
            }
        }
        for node in edges.keys.sorted() where indices[node] == nil { visit(node) }
        return result
    }
}
