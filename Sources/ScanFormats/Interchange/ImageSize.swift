public import Foundation

extension FloorPlanImage {
    /// The image's size in pixels, read from its header: PNG's IHDR, a JPEG's start-of-frame, an SVG's
    /// viewBox (else its numeric width and height). Nil when the header does not say: a plan placed by
    /// reference points is then refused with a sentence saying why.
    public var pixelSize: PixelSize? {
        switch mediaType {
        case .png: Self.pngSize(data)
        case .jpeg: Self.jpegSize(data)
        case .svg: Self.svgSize(data)
        }
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int {
        (0..<count).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }

    static func pngSize(_ data: Data) -> PixelSize? {
        // Signature (8 bytes), IHDR's length and type (8), then width and height (4 each).
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        let width = bigEndian(bytes, at: 16, count: 4), height = bigEndian(bytes, at: 20, count: 4)
        return width > 0 && height > 0 ? PixelSize(width: Double(width), height: Double(height)) : nil
    }

    static func jpegSize(_ data: Data) -> PixelSize? {
        let bytes = [UInt8](data)
        var offset = 2
        // Segments follow the SOI marker: FF, a marker byte, a two-byte length that counts itself.
        while offset + 9 < bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue } // fill byte
            let length = bigEndian(bytes, at: offset + 2, count: 2)
            // Start of frame: C0 to CF except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = bigEndian(bytes, at: offset + 5, count: 2), width = bigEndian(bytes, at: offset + 7, count: 2)
                return width > 0 && height > 0 ? PixelSize(width: Double(width), height: Double(height)) : nil
            }
            guard length >= 2 else { return nil }
            offset += 2 + length
        }
        return nil
    }

    static func svgSize(_ data: Data) -> PixelSize? {
        guard let text = String(data: data.prefix(64 * 1024), encoding: .utf8),
              let open = text.range(of: "<svg"), let close = text[open.upperBound...].firstIndex(of: ">")
        else { return nil }
        let tag = String(text[open.upperBound..<close])
        func attribute(_ name: String) -> String? {
            for quote in ["\"", "'"] {
                guard let start = tag.range(of: " \(name)=\(quote)") ?? tag.range(of: "\n\(name)=\(quote)") ?? tag.range(of: "\t\(name)=\(quote)"),
                      let end = tag[start.upperBound...].firstIndex(of: Character(quote))
                else { continue }
                return String(tag[start.upperBound..<end])
            }
            return nil
        }
        if let viewBox = attribute("viewBox") {
            let numbers = viewBox.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
            if numbers.count == 4, numbers[2] > 0, numbers[3] > 0 { return PixelSize(width: numbers[2], height: numbers[3]) }
        }
        // A bare number or one in px; percentages and other units say nothing about pixels.
        func length(_ name: String) -> Double? {
            guard var value = attribute(name)?.trimmingCharacters(in: .whitespaces) else { return nil }
            if value.hasSuffix("px") { value.removeLast(2) }
            return Double(value).flatMap { $0 > 0 ? $0 : nil }
        }
        guard let width = length("width"), let height = length("height") else { return nil }
        return PixelSize(width: width, height: height)
    }
}
