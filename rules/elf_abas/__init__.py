"""ELF ABAS ("Anything But A Six", Epping/Lee/Fremont variant): units, dice per figure, effects."""
