/// Stores an optional property out of line, so value types that contain themselves
/// (`Identifier.assigner` is a `Reference`, whose `identifier` is an `Identifier`) have a finite
/// size. The generator puts it exactly on the properties that close such a cycle; such a property
/// is always optional (a required one would make every value infinite). An absent value takes no
/// allocation: only a present one is boxed.
@propertyWrapper
public struct Indirect<Wrapped: Sendable & Hashable>: Sendable, Hashable {
    @usableFromInline final class Box: Sendable {
        @usableFromInline let value: Wrapped
        @usableFromInline init(_ value: Wrapped) { self.value = value }
    }

    @usableFromInline var box: Box?

    @inlinable public init(wrappedValue: Wrapped?) {
        box = wrappedValue.map(Box.init)
    }

    @inlinable public var wrappedValue: Wrapped? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box?.value == rhs.box?.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box?.value)
    }
}
