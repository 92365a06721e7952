public enum HeadingKitTesting {}
