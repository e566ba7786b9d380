extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String {
        JSONWriter.string(self)
    }
}
