SELECT 1; SELECT 'a''b' -- comment
 FROM tenktup1 /* c */;