#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Builds a C `SecretSchema` in memory, byte for byte, because the struct comes from a header we do not
/// import.
///
/// The C declaration (libsecret `secret-schema.h`, unchanged since 0.7):
///
/// ```c
/// typedef struct { const gchar *name; SecretSchemaAttributeType type; } SecretSchemaAttribute;
/// typedef struct {
///     const gchar *name;                        // offset 0
///     SecretSchemaFlags flags;                  // offset P (an int, padded to pointer alignment)
///     SecretSchemaAttribute attributes[32];     // offset 2P, each 2P bytes
///     gint reserved;                            // offset 2P + 64P
///     gpointer reserved1 ... reserved7;         // offset 2P + 64P + P, P bytes each
/// } SecretSchema;
/// ```
///
/// With P the pointer size (8 on 64-bit Linux) that is 592 bytes. The array ends at the first attribute
/// whose name is `NULL`, and every field we do not set stays zero: flags `SECRET_SCHEMA_NONE`, attribute
/// type `SECRET_SCHEMA_ATTRIBUTE_STRING` (0). The schema and its strings live for the whole process.
enum SecretSchemaLayout {
    static let pointerSize = MemoryLayout<UnsafeRawPointer>.size
    static let attributeCapacity = 32
    static let attributesOffset = 2 * pointerSize
    static let attributeSize = 2 * pointerSize
    static let byteCount = attributesOffset + attributeCapacity * attributeSize + pointerSize * 8

    /// Allocates a zeroed schema named `name` with string attributes `attributes` (at most 31).
    static func make(name: String, attributes: [String]) -> UnsafeMutableRawPointer {
        precondition(attributes.count < attributeCapacity, "a SecretSchema holds at most 31 attributes")
        let schema = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: pointerSize)
        schema.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        schema.storeBytes(of: UnsafeRawPointer(strdup(name)), as: UnsafeRawPointer?.self)
        for (index, attribute) in attributes.enumerated() {
            let offset = attributesOffset + index * attributeSize
            schema.storeBytes(of: UnsafeRawPointer(strdup(attribute)), toByteOffset: offset, as: UnsafeRawPointer?.self)
            schema.storeBytes(of: Int32(0), toByteOffset: offset + pointerSize, as: Int32.self)
        }
        return schema
    }
}
