/// Stores a property out of line, so value types that contain themselves (`Identifier.assigner` is
/// a `Reference`, whose `identifier` is an `Identifier`) have a finite size. The generator puts it
/// exactly on the properties that close such a cycle.
@propertyWrapper
public struct Indirect<Value: Sendable & Hashable>: Sendable, Hashable {
    @usableFromInline final class Box: Sendable {
        @usableFromInline let value: Value
        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box

    @inlinable public init(wrappedValue: Value) {
        box = Box(wrappedValue)
    }

    @inlinable public var wrappedValue: Value {
        get { box.value }
        set { box = Box(newValue) }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box.value == rhs.box.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.value)
    }
}
