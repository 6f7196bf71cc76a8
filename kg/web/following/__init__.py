"""following"""
