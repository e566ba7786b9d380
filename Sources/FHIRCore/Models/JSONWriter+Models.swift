extension JSONWriter {
    /// Writes an optional primitive: `"key": value` and, when it has an id or extensions,
    /// `"_key": {"id": …, "extension": […]}`.
    @inlinable public mutating func primitive<P: FHIRPrimitiveProtocol>(_ key: String, _ companionKey: String, _ primitive: P?) {
        guard let primitive else { return }
        if let value = primitive.value {
            self.key(key)
            self.value(value.fhirJSON)
        }
        if primitive.hasCompanion {
            self.key(companionKey)
            writeCompanion(primitive)
        }
    }

    /// Writes a repeating primitive and, when any item has an id or extensions, its `_key` companion
    /// array (with `null` for items without).
    @inlinable public mutating func primitives<P: FHIRPrimitiveProtocol>(_ key: String, _ companionKey: String, _ primitives: [P]?) {
        guard let primitives else { return }
        if primitives.isEmpty || primitives.contains(where: { $0.value != nil }) {
            self.key(key)
            beginArray()
            for primitive in primitives {
                if let value = primitive.value { self.value(value.fhirJSON) } else { null() }
            }
            endArray()
        }
        if primitives.contains(where: \.hasCompanion) {
            self.key(companionKey)
            beginArray()
            for primitive in primitives {
                if primitive.hasCompanion { writeCompanion(primitive) } else { null() }
            }
            endArray()
        }
    }

    @usableFromInline mutating func writeCompanion<P: FHIRPrimitiveProtocol>(_ primitive: P) {
        beginObject()
        if let id = primitive.id {
            key("id")
            string(id)
        }
        elements("extension", primitive.extension)
        endObject()
    }

    /// Writes an optional complex member.
    @inlinable public mutating func element<T: FHIRJSONCodable>(_ key: String, _ element: T?) {
        guard let element else { return }
        self.key(key)
        beginObject()
        element.encode(fhirObject: &self)
        endObject()
    }

    /// Writes an optional repeating complex member.
    @inlinable public mutating func elements<T: FHIRJSONCodable>(_ key: String, _ elements: [T]?) {
        guard let elements else { return }
        self.key(key)
        beginArray()
        for element in elements {
            beginObject()
            element.encode(fhirObject: &self)
            endObject()
        }
        endArray()
    }

    /// Writes an optional choice element.
    @inlinable public mutating func choice<C: FHIRChoice>(_ choice: C?) {
        choice?.encode(fhirObject: &self)
    }
}
