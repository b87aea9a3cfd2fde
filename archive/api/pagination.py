"""Page-number pagination as the contract names it: `page`, `page_size` ≤ 200."""

from rest_framework.pagination import PageNumberPagination


class ArchivePagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
