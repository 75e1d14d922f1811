"""The op table, grouped by family. Importing this package registers every op."""
