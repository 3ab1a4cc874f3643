"""The façade both front ends use (:class:`Library`), and exports of papers."""
