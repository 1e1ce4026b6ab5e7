/// A rectangle in window points. In keyboard telemetry a rectangle of all zeros means "unknown"
/// (iOS sends it while an undocked keyboard is dragged), never "hidden".
public struct FrictionRect: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// All four values zero: the frame is unknown.
    public var isZero: Bool { x == 0 && y == 0 && width == 0 && height == 0 }

    /// Whether the two rectangles share some area (touching edges do not count).
    public func intersects(_ other: FrictionRect) -> Bool {
        width > 0 && height > 0 && other.width > 0 && other.height > 0
            && x < other.x + other.width && other.x < x + width
            && y < other.y + other.height && other.y < y + height
    }

    /// The shared area of the two rectangles, or nil when they do not intersect.
    public func intersection(_ other: FrictionRect) -> FrictionRect? {
        guard intersects(other) else { return nil }
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        return FrictionRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Whether this rectangle lies fully inside `bounds`.
    public func isInside(_ bounds: FrictionRect) -> Bool {
        x >= bounds.x && y >= bounds.y && x + width <= bounds.x + bounds.width && y + height <= bounds.y + bounds.height
    }

    /// Whether a horizontal line at `lineY` crosses this rectangle.
    public func containsLine(y lineY: Double) -> Bool {
        width > 0 && height > 0 && lineY >= y && lineY <= y + height
    }
}
